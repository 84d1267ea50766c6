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
#   compacted:     rows appended in arrival order (rowid = seq), then all but the newest 1 % moved into mailbox
#                  order at negative rowids ((recipient << 40) + seq - 2^62), 1,000 rows a transaction, as an
#                  idle-time compaction would; new rows still append at the b-tree's right end.
# Prints ms per 100-row page: min / median / max of ROUNDS new connections per layout, alternated; the compaction's
# cost per row moved; and per layout the cost per row of appending APPEND more rows, 8 a transaction (the server's
# group commit), synchronous off so that the b-tree's work is measured, not the disk's.
# Usage: bench/scripts/mailbox_layout.sh [ROWS [ROUNDS [BODY_BYTES [APPEND]]]] (default 1000000 5 100 100000).
# Needs sqlite3.
set -euo pipefail
# shellcheck source=bench/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
rows=${1:-1000000}
rounds=${2:-5}
body_bytes=${3:-100}
append=${4:-100000}
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
# insert_rows FIRST LAST [ROWID_EXPRESSION]: the statement that inserts messages FIRST..LAST (i), over 100
# recipients, recipient = i mod 100.
insert_rows() {
  local rowid_column="" rowid_value=""
  if [ -n "${3:-}" ]; then rowid_column="id, " rowid_value="$3, "; fi
  # a builtin, not a here-document: the appends below print thousands of these
  echo "INSERT INTO messages(${rowid_column}seq, recipient_agent_id, message_id, account_id, conversation_id, inbox_id,
  inbox_seq, direction, sender_conn, sender_agent_id, sender_agent_name, recipient_agent_name, recipient_conn, body,
  created_at)
SELECT ${rowid_value}value, printf('agt_%020d', value % 100), printf('%012x', 1700000000000 + value) || hex(randomblob(6)),
  'acc_1', printf('conv_%d', value % 800), printf('inb_%d', value % 800), value / 800, 'in', 'conn_sender',
  'agt_sender', 'sender', 'receiver', 'conn_receiver', hex(randomblob($body_bytes / 2)), 1700000000000 + value
  FROM generate_series($1, $2);"
}
# fill FILE TABLE_DDL [ROWID_EXPRESSION]: ROWS messages.
fill() {
  sqlite3 "$1" <<SQL >/dev/null
PRAGMA journal_mode=WAL;
$2
CREATE INDEX messages_inbox ON messages(conversation_id, inbox_seq);
$(insert_rows 1 "$rows" "${3:-}")
SQL
}
# seconds COMMAND...: the wall time of COMMAND, in seconds; nothing when it failed (need_number then stops the
# script: a command substitution does not inherit set -e).
seconds() {
  local start end
  start=$(date +%s%N)
  if ! "$@" >/dev/null; then
    echo "$script: $* failed" >&2
    return 1
  fi
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }'
}
# run_script FILE SCRIPT_FILE: sqlite3 on FILE reading SCRIPT_FILE, synchronous off (the b-tree's work, not the disk's).
run_script() {
  { echo "PRAGMA synchronous=OFF;"; cat "$2"; } | sqlite3 -bail "$1"
}
fill "$work/rowid.db" "CREATE TABLE messages(seq INTEGER PRIMARY KEY AUTOINCREMENT, recipient_agent_id TEXT, $columns);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);"
fill "$work/clustered.db" "CREATE TABLE messages(seq INTEGER NOT NULL, recipient_agent_id TEXT NOT NULL, $columns,
  PRIMARY KEY(recipient_agent_id, seq)) WITHOUT ROWID;
CREATE UNIQUE INDEX messages_seq ON messages(seq);"
mailbox_place="(value % 100) * 4294967296 + value"  # (recipient << 32) + seq
fill "$work/mailbox-rowid.db" "CREATE TABLE messages(id INTEGER PRIMARY KEY, seq INTEGER NOT NULL UNIQUE,
  recipient_agent_id TEXT, $columns);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);" "$mailbox_place"
fill "$work/compacted.db" "CREATE TABLE messages(id INTEGER PRIMARY KEY, seq INTEGER NOT NULL UNIQUE,
  recipient_agent_id TEXT, $columns);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);" "value"

# The compaction: every row but the newest 1 % moves to (recipient << 40) + seq - 2^62, 1,000 rows a transaction.
compact_through=$((rows - rows / 100))
awk -v last="$compact_through" 'BEGIN {
  for (a = 1; a <= last; a += 1000) {
    b = a + 999; if (b > last) b = last
    printf "BEGIN; UPDATE messages SET id = (seq %% 100) * 1099511627776 + seq - 4611686018427387904 WHERE id BETWEEN %d AND %d; COMMIT;\n", a, b
  }
}' >"$work/compact.sql"
compact_s=$(seconds run_script "$work/compacted.db" "$work/compact.sql")
need_number "the compaction's time" "$compact_s"
moved=$(sqlite3 "$work/compacted.db" "SELECT count(*) FROM messages WHERE id < 0")
if [ "$moved" != "$compact_through" ]; then
  echo "$script: the compaction moved $moved rows, not $compact_through" >&2
  exit 1
fi

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
measure "$work/compacted.db" >/dev/null
declare -a rowid_cold rowid_warm clustered_cold clustered_warm mailbox_cold mailbox_warm compacted_cold compacted_warm
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
  read -r cold warm <<<"$(measure "$work/compacted.db")"
  need_number "the compacted layout's read times" "$cold" "$warm"
  compacted_cold+=("$cold") compacted_warm+=("$warm")
done

# Appends: APPEND more rows, 8 a transaction, each round the next APPEND / ROUNDS in every table layout, alternated.
# append_script FIRST LAST ROWID_EXPRESSION: the transactions that insert FIRST..LAST.
append_script() {
  local a b
  for ((a = $1; a <= $2; a += 8)); do
    b=$((a + 7 > $2 ? $2 : a + 7))
    echo "BEGIN;"
    insert_rows "$a" "$b" "$3"
    echo "COMMIT;"
  done
}
# us_per_row FILE FIRST LAST ROWID_EXPRESSION: µs per row of appending FIRST..LAST to FILE.
us_per_row() {
  local t
  append_script "$2" "$3" "$4" >"$work/append.sql"
  t=$(seconds run_script "$1" "$work/append.sql") || return 1  # no set -e inside $(...)
  awk -v t="$t" -v n=$(($3 - $2 + 1)) 'BEGIN { printf "%.2f", t * 1e6 / n }'
}
declare -a rowid_append mailbox_append compacted_append
per_round=$((append / rounds))
for ((r = 0; r < rounds; r++)); do
  first=$((rows + 1 + r * per_round)) last=$((rows + (r + 1) * per_round))
  us=$(us_per_row "$work/rowid.db" "$first" "$last" "")
  need_number "the rowid layout's append time" "$us"
  rowid_append+=("$us")
  us=$(us_per_row "$work/mailbox-rowid.db" "$first" "$last" "$mailbox_place")
  need_number "the mailbox rowid layout's append time" "$us"
  mailbox_append+=("$us")
  us=$(us_per_row "$work/compacted.db" "$first" "$last" "value")
  need_number "the compacted layout's append time" "$us"
  compacted_append+=("$us")
done
echo "$rows messages of $body_bytes bytes over 100 recipients; files: rowid $(du -h "$work/rowid.db" | cut -f1)," \
     "clustered $(du -h "$work/clustered.db" | cut -f1), mailbox rowid $(du -h "$work/mailbox-rowid.db" | cut -f1)," \
     "compacted $(du -h "$work/compacted.db" | cut -f1)"
echo "ms per 100-row page of one mailbox:"
echo "  rowid,     cold: $(spread "${rowid_cold[@]}"); warm: $(spread "${rowid_warm[@]}")"
echo "  clustered, cold: $(spread "${clustered_cold[@]}"); warm: $(spread "${clustered_warm[@]}")"
echo "  mailbox rowid, cold: $(spread "${mailbox_cold[@]}"); warm: $(spread "${mailbox_warm[@]}")"
echo "  compacted, cold: $(spread "${compacted_cold[@]}"); warm: $(spread "${compacted_warm[@]}")"
echo "compaction: $compact_through rows moved in $compact_s s," \
     "$(awk -v t="$compact_s" -v n="$compact_through" 'BEGIN { printf "%.2f", t * 1e6 / n }') us per row"
echo "us per row appended, $append rows 8 a transaction ($per_round a round):"
echo "  rowid: $(spread "${rowid_append[@]}")"
echo "  mailbox rowid: $(spread "${mailbox_append[@]}")"
echo "  compacted, new rows appended: $(spread "${compacted_append[@]}")"
