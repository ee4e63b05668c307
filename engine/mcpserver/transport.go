package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is stdio for the server: newline-delimited JSON-RPC on in and
// out. A line that is not a JSON-RPC message gets a JSON-RPC error (-32700
// or -32600) and the session goes on; the SDK alone would end the session
// on it.
//
// Each line is decoded once, here, into the SDK's message types: the SDK's
// own stdio connection decodes a request three times, with a fresh 32 KB
// buffer each time, which was most of the garbage of a small call. Keys
// match exactly, as they do in the SDK's decoder.
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
	return &stdio{in: bufio.NewReaderSize(Pollable(in), 64<<10), w: &lineWriter{w: out}, inflight: f, pre: newPrecoded(), direct: &direct{}}
}

// stdio is the transport Transport returns; Server.Run recognises it.
type stdio struct {
	in       *bufio.Reader
	w        *lineWriter
	inflight *inflight
	pre      *precoded
	direct   *direct
}

func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &conn{t: t, incoming: make(chan received), closed: make(chan struct{})}
	t.direct.mu.Lock()
	t.direct.conn = c
	t.direct.mu.Unlock()
	go c.readAll()
	return c, nil
}

// conn is the session's connection. One goroutine reads (so that Close
// unblocks a Read waiting for input); responses are written here: each
// ends one request (the drain on stdin close counts them), and one
// carrying a precoded result gets its bytes spliced in.
type conn struct {
	t         *stdio
	incoming  chan received
	closed    chan struct{}
	closeOnce sync.Once
}

type received struct {
	msg jsonrpc.Message
	err error
}

func (c *conn) readAll() {
	for {
		msg, err := c.t.next()
		select {
		case c.incoming <- received{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResponse := msg.(*jsonrpc.Response)
	if isResponse {
		// Answered, even when the answer is not written below.
		c.t.direct.answered(resp.ID)
		defer c.t.inflight.add(-1)
	}
	// A write on a context that has ended is an error, as in the SDK's
	// own connection.
	if err := ctx.Err(); err != nil {
		return err
	}
	if isResponse && resp.Error == nil {
		if line, ok, err := c.t.pre.splice(resp); ok {
			if err != nil {
				return c.write(&jsonrpc.Response{ID: resp.ID, Error: err})
			}
			_, werr := c.t.w.Write(*line)
			putBuffer(line)
			return werr
		}
	}
	return c.write(msg)
}

// answer writes the response to a call the transport answered itself;
// once the session is closed nothing is written, as the SDK writes
// nothing then.
func (c *conn) answer(resp *jsonrpc.Response) {
	ctx := context.Background()
	select {
	case <-c.closed:
		ended, cancel := context.WithCancel(ctx)
		cancel()
		ctx = ended
	default:
	}
	c.Write(ctx, resp)
}

func (c *conn) write(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	_, err = c.t.w.Write(append(data, '\n'))
	return err
}

func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *conn) SessionID() string { return "" }

// maxLine bounds one message, as the SDK's stdio transport does.
const maxLine = mcp.DefaultMaxLineLength

// next reads lines until one is a message for the SDK, answering the
// others; at the end of stdin it waits for the answers still owed.
func (t *stdio) next() (jsonrpc.Message, error) {
	for {
		line, long, err := readLine(t.in, maxLine)
		if trimmed := bytes.TrimSpace(line); long {
			t.w.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d MiB", maxLine>>20))
		} else if len(trimmed) > 0 {
			switch msg, id, why := decode(trimmed); why {
			case "":
				if !t.answers(msg) {
					return msg, nil
				}
			case "parse":
				t.w.reply(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON; send one JSON-RPC message per line")
			default:
				t.w.reply(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+why)
			}
		}
		if err != nil {
			if err == io.EOF {
				t.inflight.wait(drainLimit)
			}
			return nil, err
		}
	}
}

// answers reports whether the transport answers msg itself (see direct);
// the SDK gets every other message.
func (t *stdio) answers(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			t.direct.cancel(req.Params)
		}
		return false
	}
	t.inflight.add(1)
	return t.direct.take(req)
}

// readLine is the next line without its newline; one longer than max is
// read to its end and dropped (long).
func readLine(r *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(part) > max+1 {
				long, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
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

// decode reads one line as a JSON-RPC 2.0 message, or says what is wrong
// with it ("parse" for not JSON), with the message's id when it has one.
// Requests are built here; responses (to the server's own requests, rare)
// go through the SDK's decoder.
func decode(line []byte) (msg jsonrpc.Message, id json.RawMessage, why string) {
	var m map[string]json.RawMessage
	// Unmarshal checks the whole line before decoding: a syntax error is
	// a line that is not JSON, whatever its first byte.
	err := json.Unmarshal(line, &m)
	if _, syntax := err.(*json.SyntaxError); syntax {
		return nil, nil, "parse"
	}
	if line[0] == '[' {
		return nil, nil, "batches are not part of MCP; send one message per line"
	}
	if line[0] != '{' || err != nil {
		return nil, nil, "a message is a JSON object"
	}
	id = m["id"]
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, id, `"jsonrpc" must be "2.0"`
	}
	rawMethod, isRequest := m["method"]
	if !isRequest {
		if m["result"] == nil && m["error"] == nil {
			return nil, id, `a message needs "method" (a request or notification) or "result"/"error" (a response)`
		}
		resp, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, id, err.Error()
		}
		return resp, nil, ""
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil {
		return nil, id, `"method" must be a string`
	}
	if method == "" {
		return nil, id, `"method" is empty`
	}
	var v any
	if id != nil && json.Unmarshal(id, &v) != nil {
		return nil, nil, `"id" must be a string or a number`
	}
	rid, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil, nil, `"id" must be a string or a number`
	}
	return &jsonrpc.Request{ID: rid, Method: method, Params: m["params"]}, nil, ""
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
