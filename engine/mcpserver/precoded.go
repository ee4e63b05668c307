package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/bufpool"
)

// precoded keeps tool results the server encoded itself until the stdio
// connection writes them.
//
// A result carries the envelope twice (as JSON text and as structured
// content), and the SDK re-scans it at every layer: the text content, the
// result, the response and the message are each marshaled and compacted
// again, about five passes over a result twice the envelope's size. For a
// 200-line read that was most of a round trip. So on the stdio transport
// the handler encodes the envelope once and returns a stand-in result whose
// text and structured content are two placeholder strings; the connection
// finds them in the response the SDK encoded and splices the encoded bytes
// in their place. The placeholders carry a random per-process nonce and a
// sequence number, and are searched for only in the small stand-in result
// (before anything from the workspace is in it), so no file content can
// imitate one. The bytes written are what the SDK would have written for
// the full result (tested).
type precoded struct {
	prefix string // `"aw-precoded-<nonce>-`: a placeholder as it appears in JSON
	mu     sync.Mutex
	next   uint64
	parts  map[uint64]precodedResult
}

// precodedResult is one encoded envelope waiting for its response: the
// bytes are a pooled buffer, given back once the response is written.
type precodedResult struct {
	raw *[]byte
}

func newPrecoded() *precoded {
	return &precoded{prefix: `"aw-precoded-` + rand.Text() + `-`, parts: map[uint64]precodedResult{}}
}

// getBuffer and putBuffer hold the envelope and response buffers of
// precoded results: a 200-line read encodes to tens of KiB three times per
// call (envelope, its text copy, the response line).
func getBuffer() *[]byte { return bufpool.Get(0) }

func putBuffer(b *[]byte) { bufpool.Put(b) }

type precodedKey struct{}

// precodedFrom is the store of the session a handler serves, when it was
// connected through Transport.
func precodedFrom(ctx context.Context) *precoded {
	p, _ := ctx.Value(precodedKey{}).(*precoded)
	return p
}

// result encodes env and returns the stand-in for it: the SDK encodes the
// stand-in, the connection splices the encoded envelope in. It returns nil
// when env does not encode (the caller reports that).
func (p *precoded) result(env any, isError bool) *mcp.CallToolResult {
	buf := getBuffer()
	w := sliceWriter{buf}
	// What json.Marshal writes, plus the newline Encode ends with.
	if err := json.NewEncoder(w).Encode(env); err != nil {
		putBuffer(buf)
		return nil
	}
	*buf = bytes.TrimSuffix(*buf, []byte("\n"))
	p.mu.Lock()
	n := p.next
	p.next++
	p.parts[n] = precodedResult{raw: buf}
	p.mu.Unlock()
	name := p.prefix[1:] + strconv.FormatUint(n, 10)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: name + "t"}},
		StructuredContent: json.RawMessage(`"` + name + `s"`),
		IsError:           isError,
	}
}

// sliceWriter appends to a pooled buffer.
type sliceWriter struct{ b *[]byte }

func (w sliceWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

// splice returns the response line with the stand-in's placeholders
// replaced, and whether the response carried one. A placeholder whose
// result is gone (never expected) is an internal error, never sent as is.
// The line is a pooled buffer: the caller gives it back with putBuffer
// once written.
func (p *precoded) splice(resp *jsonrpc.Response) (*[]byte, bool, error) {
	i := bytes.Index(resp.Result, []byte(p.prefix))
	if i < 0 {
		return nil, false, nil
	}
	rest := resp.Result[i+len(p.prefix):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.ParseUint(string(rest[:j]), 10, 64)
	p.mu.Lock()
	part, ok := p.parts[n]
	delete(p.parts, n)
	p.mu.Unlock()
	lost := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "aw lost the encoded tool result; call the tool again"}
	if err != nil || !ok {
		return nil, true, lost
	}
	defer putBuffer(part.raw)
	raw := *part.raw
	name := resp.Result[i : i+len(p.prefix)+j]
	text := append(append([]byte{}, name...), `t"`...)
	structured := append(append([]byte{}, name...), `s"`...)
	if bytes.Count(resp.Result, text) != 1 || bytes.Count(resp.Result, structured) != 1 {
		return nil, true, lost
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return nil, true, lost
	}
	buf := getBuffer()
	line := append((*buf)[:0], `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	// The two placeholders in the order they appear, each replaced once:
	// the text by raw as a JSON string, the structured content by raw.
	rest = resp.Result
	order := []bool{false, true} // whether the placeholder is the text
	if bytes.Index(rest, text) < bytes.Index(rest, structured) {
		order = []bool{true, false}
	}
	for _, isText := range order {
		ph := structured
		if isText {
			ph = text
		}
		k := bytes.Index(rest, ph)
		line = append(line, rest[:k]...)
		if !isText {
			line = append(line, raw...)
		} else if q, ok := appendQuote(line, raw); ok {
			line = q
		} else if s, err := json.Marshal(string(raw)); err == nil {
			line = append(line, s...)
		} else {
			*buf = line
			putBuffer(buf)
			return nil, true, lost
		}
		rest = rest[k+len(ph):]
	}
	line = append(line, rest...)
	*buf = append(line, "}\n"...)
	return buf, true, nil
}

// appendQuote appends raw, the output of encoding/json, as a JSON string:
// the bytes json.Marshal(string(raw)) gives. That output has no control
// character and none of the characters the encoder escapes for HTML or
// JavaScript (they are \u escapes already), so only quotes and
// backslashes are escaped here, in one table-driven pass instead of the
// encoder's per-character one. Anything else (a control byte, invalid
// UTF-8 from a raw message) is left to the encoder: ok is false, and dst
// is returned as it was.
func appendQuote(dst, raw []byte) (_ []byte, ok bool) {
	if !utf8.Valid(raw) {
		return dst, false
	}
	out := slices.Grow(dst, len(raw)+len(raw)/8+2)
	out = append(out, '"')
	start := 0
	for i := 0; i < len(raw); i++ {
		switch quoteClass[raw[i]] {
		case quoteEscape:
			out = append(append(out, raw[start:i]...), '\\', raw[i])
			start = i + 1
		case quoteDecline:
			return dst, false
		case quoteLineSep: // U+2028 and U+2029 start E2 80 A8/A9
			if i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8 {
				return dst, false
			}
		}
	}
	out = append(out, raw[start:]...)
	return append(out, '"'), true
}

const (
	quotePlain = iota
	quoteEscape
	quoteDecline
	quoteLineSep
)

// quoteClass is what quote does with each byte.
var quoteClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = quoteDecline
	}
	t['<'], t['>'], t['&'] = quoteDecline, quoteDecline, quoteDecline
	t['"'], t['\\'] = quoteEscape, quoteEscape
	t[0xE2] = quoteLineSep
	return t
}()
