package mcpserver

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SDKTransport is Transport with every call handed to the SDK.
func SDKTransport(in io.Reader, out io.Writer) mcp.Transport {
	t := Transport(in, out).(*stdio)
	t.direct.off = true
	return t
}

// Taken is how many calls t answered without the SDK.
func Taken(t mcp.Transport) int {
	d := t.(*stdio).direct
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.taken
}
