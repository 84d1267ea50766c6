// placeholder: replaced by the server implementation
namespace agentworks::server {}
