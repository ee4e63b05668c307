package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// direct answers a tools/call for one of aw's own tools from the line the
// stdio transport read, instead of handing it to the SDK: the SDK decodes
// the params twice more (a probe for _meta, then the params, each with a
// fresh 32 KiB buffer) and starts two goroutines per call, a quarter of a
// small call's CPU. The handler gets what the SDK would give it (the
// session, the name, the raw arguments, _meta) and the response is what
// the SDK would write (tested against the SDK's path).
//
// Everything else goes to the SDK unchanged, and so does any call this is
// unsure of: a call before the session is initialized, a session on the
// sessionless protocol (2026-07-28 on), params with a key besides name,
// object arguments and a _meta holding only a progress token, an unknown
// tool, an id already in flight on the SDK's side.
type direct struct {
	off bool // every call goes to the SDK (tests compare the two paths)

	mu      sync.Mutex
	conn    *conn
	ctx     context.Context // the session's, which ending does not cancel calls
	session *mcp.ServerSession
	server  *Server
	// calls are the client's calls in flight, by id: the cancel of one
	// answered here, nil for one the SDK answers.
	calls map[jsonrpc.ID]context.CancelFunc
	taken int // calls answered here (tests count them)
}

// sdkCompat reports MCPGODEBUG set: the SDK then restores older
// behaviours of its own, which only the SDK's path follows.
var sdkCompat = sync.OnceValue(func() bool { return os.Getenv("MCPGODEBUG") != "" })

// sessionless is the first protocol version without initialize, whose
// results the SDK marks with a resultType.
const sessionless = "2026-07-28"

// start lets calls on ss be answered here once ss is initialized.
func (d *direct) start(ctx context.Context, ss *mcp.ServerSession, s *Server) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ctx, d.session, d.server = context.WithoutCancel(ctx), ss, s
}

// take answers req here, or records it as the SDK's and returns false.
// Only the transport's reader calls it, so an id it finds free stays free
// while the params are read (outside the lock, which writers take).
func (d *direct) take(req *jsonrpc.Request) bool {
	d.mu.Lock()
	cancel, inUse := d.calls[req.ID]
	ss, s, base, conn := d.session, d.server, d.ctx, d.conn
	d.mu.Unlock()
	if inUse {
		if cancel == nil {
			return false // the SDK refuses it itself
		}
		// What the SDK does with an id in use: drops the call unanswered.
		conn.t.inflight.add(-1)
		return true
	}
	var h mcp.ToolHandler
	var p *mcp.CallToolParamsRaw
	if !d.off && ss != nil {
		h, p = accept(req, ss, s)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == nil {
		d.calls = map[jsonrpc.ID]context.CancelFunc{}
	}
	if h == nil {
		d.calls[req.ID] = nil
		return false
	}
	ctx, cancel := context.WithCancel(base)
	d.calls[req.ID] = cancel
	d.taken++
	s.warm.start(func() {
		defer cancel()
		conn.answer(d.respond(ctx, req.ID, ss, h, p))
	})
	return true
}

// accept is the handler and params of a call to answer here, or a nil
// handler.
func accept(req *jsonrpc.Request, ss *mcp.ServerSession, s *Server) (mcp.ToolHandler, *mcp.CallToolParamsRaw) {
	if sdkCompat() || req.Method != "tools/call" {
		return nil, nil
	}
	if ip := ss.InitializeParams(); ip == nil || ip.ProtocolVersion >= sessionless {
		return nil, nil
	}
	p, ok := callParams(req.Params)
	if !ok {
		return nil, nil
	}
	handlers := s.handlers.Load()
	if handlers == nil {
		return nil, nil
	}
	return (*handlers)[p.Name], p
}

// methodNotFound matches any error with the code, as the SDK's does.
var methodNotFound = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}

// maxDepth is the nesting the SDK's decoder allows params.
const maxDepth = 1000

// callParams reads the params of a call answered here: exactly the keys
// name (a string), arguments (an object) and _meta (a progress token
// only), as the SDK's case-sensitive decoder would read them.
func callParams(raw json.RawMessage) (*mcp.CallToolParamsRaw, bool) {
	if bytes.Count(raw, []byte("{"))+bytes.Count(raw, []byte("[")) > maxDepth {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	p := &mcp.CallToolParamsRaw{}
	for k, v := range m {
		switch k {
		case "name":
			if v[0] != '"' || json.Unmarshal(v, &p.Name) != nil {
				return nil, false
			}
		case "arguments":
			if v[0] != '{' {
				return nil, false
			}
			p.Arguments = v
		case "_meta":
			var meta mcp.Meta
			if json.Unmarshal(v, &meta) != nil || len(meta) != 1 {
				return nil, false
			}
			switch meta["progressToken"].(type) {
			case string, float64:
			default:
				return nil, false
			}
			p.Meta = meta
		default:
			return nil, false
		}
	}
	return p, true
}

// cancel cancels the call a notifications/cancelled names, when it is
// answered here (the SDK sees the notification too).
func (d *direct) cancel(params json.RawMessage) {
	var p map[string]json.RawMessage
	var v any
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["requestId"], &v) != nil {
		return
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return
	}
	d.mu.Lock()
	cancel := d.calls[id]
	d.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answered forgets a call once its response is written: the client may
// use its id again.
func (d *direct) answered(id jsonrpc.ID) {
	d.mu.Lock()
	delete(d.calls, id)
	d.mu.Unlock()
}

// respond runs the call and builds the response the SDK would write.
func (d *direct) respond(ctx context.Context, id jsonrpc.ID, ss *mcp.ServerSession, h mcp.ToolHandler, p *mcp.CallToolParamsRaw) *jsonrpc.Response {
	res, err := d.call(ctx, ss, h, p)
	if errors.Is(err, methodNotFound) {
		// As the SDK's connection rewrites it (a client's answer to an
		// elicitation can carry the code).
		err = fmt.Errorf("%w: %q", methodNotFound, "tools/call")
	}
	if err != nil {
		return &jsonrpc.Response{ID: id, Error: err}
	}
	// The SDK's encoding: no HTML escapes, no trailing newline.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "aw could not encode the tool result: " + err.Error()}}
	}
	return &jsonrpc.Response{ID: id, Result: bytes.TrimRight(b.Bytes(), "\n")}
}

// call is the SDK's tools/call with its multi-round-trip middleware, for a
// client before 2026-07-28: a result asking for input is fulfilled by
// asking the client, then the tool is called once more with the answers.
func (d *direct) call(ctx context.Context, ss *mcp.ServerSession, h mcp.ToolHandler, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	res, err := d.callOnce(ctx, h, &mcp.CallToolRequest{Session: ss, Params: p})
	if err != nil || res == nil || res.InputRequests == nil {
		return res, err
	}
	if len(res.InputRequests) == 0 {
		return nil, errors.New("the server is busy, retry later")
	}
	answers := make(mcp.InputResponseMap, len(res.InputRequests))
	for key, ir := range res.InputRequests {
		var answer mcp.InputResponse
		var err error
		// aw's tools ask only for elicitations.
		if e, ok := ir.(*mcp.ElicitParams); ok {
			answer, err = ss.Elicit(ctx, e)
		} else {
			err = fmt.Errorf("unknown input request type: %T", ir)
		}
		if err != nil {
			return nil, fmt.Errorf("multi-round-trip: %w", fmt.Errorf("fulfilling input request %q: %w", key, err))
		}
		answers[key] = answer
	}
	retry := *p
	retry.InputResponses, retry.RequestState = answers, res.RequestState
	return d.callOnce(ctx, h, &mcp.CallToolRequest{Session: ss, Params: &retry})
}

// callOnce is the SDK's Server.callTool once the tool is found.
func (d *direct) callOnce(ctx context.Context, h mcp.ToolHandler, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := h(ctx, req)
	if err != nil || res == nil {
		return res, err
	}
	if res.InputRequests != nil && (len(res.Content) > 0 || res.StructuredContent != nil) {
		if l := d.server.opts.Logger; l != nil {
			l.Warn("handler returned both content and inputRequests")
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "server bug: result has both content and inputRequests"}
	}
	if res.Content == nil {
		res2 := *res
		res2.Content = []mcp.Content{} // as the SDK: never "null"
		res = &res2
	}
	return res, nil
}
