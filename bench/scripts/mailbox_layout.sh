#!/usr/bin/env bash
# What a page of one mailbox costs when its rows are cold, in the store's row layout and in two layouts that keep a
# mailbox's rows together, with SQLite alone (no server). Each file holds ROWS messages (the columns of the server's
# `messages` table, BODY_BYTES of body) for 100 recipients, interleaved in time as sends arrive. A measure is one
# statement that reads 100 messages of each of the 100 recipients (every column), timed by the sqlite3 shell:
# "cold" in a new connection (SQLite's page cache empty, the file in the kernel's page cache, as on a server whose
# old rows were evicted from its 32 MiB cache), "warm" the same statement again in that connection (its cache large
# enough to hold every page the first one read).
#   rowid:         the store's table: rows in arrival order (seq), found through the (recipient, seq) index.
#   clustered:     WITHOUT ROWID keyed by (recipient, seq): one recipient's rows side by side.
#   mailbox rowid: the store's table, but each row's rowid is (recipient number << 32) + seq, so that a recipient's
#                  rows sit side by side while a row stays inline in a table b-tree (a WITHOUT ROWID row spills to
#                  overflow pages past about a quarter of a page).
# Prints ms per 100-row page: min / median / max of ROUNDS new connections per layout, alternated.
# Usage: bench/scripts/mailbox_layout.sh [ROWS [ROUNDS [BODY_BYTES]]] (default 1000000 5 100). Needs sqlite3.
set -euo pipefail
# shellcheck source=bench/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
rows=${1:-1000000}
rounds=${2:-5}
body_bytes=${3:-100}
if ! command -v sqlite3 >/dev/null; then
  echo "$script: needs the sqlite3 shell (apt-get install sqlite3)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/aw-mailbox-layout-XXXXXX)
trap 'rm -rf "$work"' EXIT

columns="message_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
  inbox_id TEXT NOT NULL, inbox_seq INTEGER NOT NULL, direction TEXT NOT NULL, sender_conn TEXT NOT NULL,
  sender_agent_id TEXT, sender_agent_name TEXT, recipient_agent_name TEXT, recipient_conn TEXT NOT NULL,
  body TEXT NOT NULL, created_at INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'stored'"
# fill FILE TABLE_DDL [ROWID_EXPRESSION]: ROWS messages over 100 recipients, recipient = seq mod 100.
fill() {
  local rowid_column="" rowid_value=""
  if [ -n "${3:-}" ]; then rowid_column="id, " rowid_value="$3, "; fi
  sqlite3 "$1" <<SQL >/dev/null
PRAGMA journal_mode=WAL;
$2
CREATE INDEX messages_inbox ON messages(conversation_id, inbox_seq);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
INSERT INTO messages(${rowid_column}seq, recipient_agent_id, message_id, account_id, conversation_id, inbox_id, inbox_seq,
                     direction, sender_conn, sender_agent_id, sender_agent_name, recipient_agent_name,
                     recipient_conn, body, created_at)
SELECT ${rowid_value}i, printf('agt_%020d', i % 100), printf('%012x', 1700000000000 + i) || hex(randomblob(6)), 'acc_1',
       printf('conv_%d', i % 800), printf('inb_%d', i % 800), i / 800, 'in', 'conn_sender', 'agt_sender', 'sender',
       'receiver', 'conn_receiver', hex(randomblob($body_bytes / 2)), 1700000000000 + i FROM n;
SQL
}
fill "$work/rowid.db" "CREATE TABLE messages(seq INTEGER PRIMARY KEY AUTOINCREMENT, recipient_agent_id TEXT, $columns);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);"
fill "$work/clustered.db" "CREATE TABLE messages(seq INTEGER NOT NULL, recipient_agent_id TEXT NOT NULL, $columns,
  PRIMARY KEY(recipient_agent_id, seq)) WITHOUT ROWID;
CREATE UNIQUE INDEX messages_seq ON messages(seq);"
fill "$work/mailbox-rowid.db" "CREATE TABLE messages(id INTEGER PRIMARY KEY, seq INTEGER NOT NULL UNIQUE,
  recipient_agent_id TEXT, $columns);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);" "(i % 100) * 4294967296 + i"

# 100 messages of every recipient, every column read; recipient k's page starts k hundredths into the history, so
# that no two pages share a table page in the store's layout (each of its rows lies among 99 other recipients').
read_all="SELECT sum((SELECT sum(length(message_id) + length(body) + length(conversation_id) + length(sender_conn)
  + length(recipient_conn) + inbox_seq + created_at) FROM (SELECT * FROM messages WHERE recipient_agent_id = r.id
  AND seq > r.start ORDER BY seq LIMIT 100))) FROM (SELECT printf('agt_%020d', value) AS id,
  value * ($rows / 100) AS start FROM generate_series(0, 99)) AS r;"
# measure FILE: prints "cold warm" ms per 100-row read.
measure() {
  sqlite3 "$1" <<SQL | awk '/^Run Time/ { t[++n] = $4 * 1000 / 100 } END { printf "%.3f %.3f\n", t[1], t[2] }'
PRAGMA cache_size=-262144;
SELECT count(*) FROM sqlite_schema;
.timer on
$read_all
$read_all
SQL
}
# Once each first, so that both files are in the kernel's page cache.
measure "$work/rowid.db" >/dev/null
measure "$work/clustered.db" >/dev/null
measure "$work/mailbox-rowid.db" >/dev/null
declare -a rowid_cold rowid_warm clustered_cold clustered_warm mailbox_cold mailbox_warm
for ((r = 1; r <= rounds; r++)); do
  read -r cold warm <<<"$(measure "$work/rowid.db")"
  need_number "the rowid layout's read times" "$cold" "$warm"
  rowid_cold+=("$cold") rowid_warm+=("$warm")
  read -r cold warm <<<"$(measure "$work/clustered.db")"
  need_number "the clustered layout's read times" "$cold" "$warm"
  clustered_cold+=("$cold") clustered_warm+=("$warm")
  read -r cold warm <<<"$(measure "$work/mailbox-rowid.db")"
  need_number "the mailbox rowid layout's read times" "$cold" "$warm"
  mailbox_cold+=("$cold") mailbox_warm+=("$warm")
done
echo "$rows messages of $body_bytes bytes over 100 recipients; files: rowid $(du -h "$work/rowid.db" | cut -f1)," \
     "clustered $(du -h "$work/clustered.db" | cut -f1), mailbox rowid $(du -h "$work/mailbox-rowid.db" | cut -f1)"
echo "ms per 100-row page of one mailbox:"
echo "  rowid,     cold: $(spread "${rowid_cold[@]}"); warm: $(spread "${rowid_warm[@]}")"
echo "  clustered, cold: $(spread "${clustered_cold[@]}"); warm: $(spread "${clustered_warm[@]}")"
echo "  mailbox rowid, cold: $(spread "${mailbox_cold[@]}"); warm: $(spread "${mailbox_warm[@]}")"
