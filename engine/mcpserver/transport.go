package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is stdio for the server: newline-delimited JSON-RPC on in and
// out. A line that is not JSON gets a JSON-RPC parse error (-32700) and the
// session goes on; the SDK alone would end the session on it.
//
// When stdin closes, the requests already read are answered before the
// session ends (a client may pipe its requests and close at once).
//
// A tool result the server encoded itself (see precoded) is written here
// in one piece instead of being re-encoded by the SDK. A pipe on stdin is
// read through the runtime's poller (see Pollable).
func Transport(in io.Reader, out io.Writer) mcp.Transport {
	f := &inflight{}
	f.idle = sync.NewCond(&f.mu)
	w := &lineWriter{w: out}
	r := &checkedReader{in: bufio.NewReaderSize(Pollable(in), 64<<10), reply: w, inflight: f}
	return &stdio{io: &mcp.IOTransport{Reader: r, Writer: w}, w: w, inflight: f, pre: newPrecoded()}
}

// stdio is the transport Transport returns; Server.Run recognises it.
type stdio struct {
	io       *mcp.IOTransport
	w        *lineWriter
	inflight *inflight
	pre      *precoded
}

func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.io.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, t: t}, nil
}

// conn is the SDK's stdio connection with responses written here: each
// response ends one request (the drain on stdin close counts them), and a
// response carrying a precoded result gets its bytes spliced in.
type conn struct {
	mcp.Connection
	t *stdio
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	defer c.t.inflight.add(-1)
	if resp.Error == nil {
		if line, ok, err := c.t.pre.splice(resp); ok {
			if err != nil {
				return c.Connection.Write(ctx, &jsonrpc.Response{ID: resp.ID, Error: err})
			}
			_, werr := c.t.w.Write(*line)
			putBuffer(line)
			return werr
		}
	}
	return c.Connection.Write(ctx, msg)
}

// drainLimit bounds how long a closed stdin waits for answers (a command
// run may take commands.maxSeconds).
const drainLimit = 15 * time.Minute

// inflight counts the client's requests not yet answered.
type inflight struct {
	mu   sync.Mutex
	idle *sync.Cond
	n    int
}

func (f *inflight) add(d int) {
	f.mu.Lock()
	f.n += d
	if f.n <= 0 {
		f.n = 0
		f.idle.Broadcast()
	}
	f.mu.Unlock()
}

// wait returns once every request read has been answered, or at the limit.
func (f *inflight) wait(limit time.Duration) {
	t := time.AfterFunc(limit, func() { f.add(-1 << 30) })
	defer t.Stop()
	f.mu.Lock()
	for f.n > 0 {
		f.idle.Wait()
	}
	f.mu.Unlock()
}

// checkedReader passes through the lines that are JSON and answers the rest.
type checkedReader struct {
	in       *bufio.Reader
	reply    *lineWriter
	inflight *inflight
	buf      []byte
}

func (r *checkedReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		line, err := r.in.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			switch id, why, request := check(trimmed); why {
			case "":
				r.buf = append(trimmed, '\n')
				if request {
					r.inflight.add(1)
				}
			case "parse":
				r.reply.reply(nil, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per line")
			default:
				r.reply.reply(id, -32600, "Invalid Request: "+why)
			}
		}
		if err != nil && len(r.buf) == 0 {
			if err == io.EOF {
				r.inflight.wait(drainLimit)
			}
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (r *checkedReader) Close() error { return nil }

// check says what is wrong with a line as a JSON-RPC 2.0 message ("" for
// nothing, "parse" for not JSON), with the message's id when it has one,
// and whether it is a request (a method and an id: it will be answered).
func check(line []byte) (id json.RawMessage, why string, request bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	// Unmarshal checks the whole line before decoding: a syntax error is
	// a line that is not JSON, whatever its first byte.
	err := json.Unmarshal(line, &m)
	if _, syntax := err.(*json.SyntaxError); syntax {
		return nil, "parse", false
	}
	if line[0] == '[' {
		return nil, "batches are not part of MCP; send one message per line", false
	}
	if line[0] != '{' || err != nil {
		return nil, "a message is a JSON object", false
	}
	switch {
	case m.JSONRPC != "2.0":
		return m.ID, `"jsonrpc" must be "2.0"`, false
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return m.ID, `a message needs "method" (a request or notification) or "result"/"error" (a response)`, false
	case m.Method != nil && *m.Method == "":
		return m.ID, `"method" is empty`, false
	}
	return nil, "", m.Method != nil && len(m.ID) > 0 && string(m.ID) != "null"
}

// lineWriter writes whole lines under a lock, so a parse-error reply never
// lands inside a frame the SDK is writing.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 && len(p) > 0 && p[len(p)-1] == '\n' {
		// A whole frame, the usual case: no copy.
		if _, err := l.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		if _, err := l.w.Write(l.buf[:i+1]); err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

// reply answers a line the SDK never sees with a JSON-RPC error.
func (l *lineWriter) reply(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	l.Write(append(raw, '\n'))
}

func (l *lineWriter) Close() error { return nil }
