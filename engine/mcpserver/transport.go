package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is stdio for the server: newline-delimited JSON-RPC on in and
// out. A line that is not JSON gets a JSON-RPC parse error (-32700) and the
// session goes on; the SDK alone would end the session on it.
//
// When stdin closes, the requests already read are answered before the
// session ends (a client may pipe its requests and close at once).
func Transport(in io.Reader, out io.Writer) mcp.Transport {
	f := &inflight{}
	f.idle = sync.NewCond(&f.mu)
	w := &lineWriter{w: out, inflight: f}
	r := &checkedReader{in: bufio.NewReaderSize(in, 64<<10), reply: w, inflight: f}
	return &mcp.IOTransport{Reader: r, Writer: w}
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

// kind classifies a JSON-RPC line: a request (method and id), a response
// (id with result or error), or neither (a notification).
func kind(line []byte) (request, response bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return false, false
	}
	return m.Method != nil, m.Method == nil && (m.Result != nil || m.Error != nil)
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
			switch id, why := check(trimmed); why {
			case "":
				r.buf = append(trimmed, '\n')
				if req, _ := kind(trimmed); req {
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
// nothing, "parse" for not JSON), with the message's id when it has one.
func check(line []byte) (json.RawMessage, string) {
	if !json.Valid(line) {
		return nil, "parse"
	}
	if line[0] == '[' {
		return nil, "batches are not part of MCP; send one message per line"
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return nil, "a message is a JSON object"
	}
	switch {
	case m.JSONRPC != "2.0":
		return m.ID, `"jsonrpc" must be "2.0"`
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return m.ID, `a message needs "method" (a request or notification) or "result"/"error" (a response)`
	case m.Method != nil && *m.Method == "":
		return m.ID, `"method" is empty`
	}
	return nil, ""
}

// lineWriter writes whole lines under a lock, so a parse-error reply never
// lands inside a frame the SDK is writing.
type lineWriter struct {
	mu       sync.Mutex
	w        io.Writer
	buf      []byte
	inflight *inflight
}

func (l *lineWriter) Write(p []byte) (int, error) {
	return l.write(p, true)
}

func (l *lineWriter) write(p []byte, count bool) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		lines := l.buf[:i+1]
		if _, err := l.w.Write(lines); err != nil {
			return 0, err
		}
		if count {
			for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
				if _, resp := kind(line); resp {
					l.inflight.add(-1)
				}
			}
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
	l.write(append(raw, '\n'), false)
}

func (l *lineWriter) Close() error { return nil }
