package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// appendQuote is json.Marshal(string(raw)) for whatever encoding/json writes,
// and declines what the encoder would change.
func TestQuoteIsTheEncoders(t *testing.T) {
	values := []any{
		map[string]any{"content": "     1\tline \"one\" \\ <b>&amp;</b>\n", "n": 3, "ok": true},
		"\u2028\u2029 \x00\x1f \xff\xfe é 漢字 😀",
		[]string{`\"`, `\\`, "\\u003c", "\r\n"},
		json.RawMessage(`{"raw":"<&>"}`),
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendQuote(nil, raw)
		want, _ := json.Marshal(string(raw))
		if !ok || string(got) != string(want) {
			t.Errorf("appendQuote(%s) = %s, %v; json.Marshal gives %s", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"a\nb", "<", "&", ">", "\u2028", "\u2029", "\xff"} {
		if got, ok := appendQuote(nil, []byte(raw)); ok {
			t.Errorf("appendQuote(%q) = %s: the encoder changes this, it must decline", raw, got)
		}
	}
}

// BenchmarkAppendQuote quotes the envelope of a 200-line read, the text
// copy every read result carries.
func BenchmarkAppendQuote(b *testing.B) {
	var content strings.Builder
	for l := 1; l <= 200; l++ {
		fmt.Fprintf(&content, "%6d\tline %03d: the quick brown fox jumps over the <lazy> dog & \"friends\"\n", l, l)
	}
	raw, _ := json.Marshal(map[string]any{"protocol": "agentic-workspace/v1", "data": map[string]any{"content": content.String()}})
	buf := make([]byte, 0, 2*len(raw))
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, ok := appendQuote(buf[:0], raw); !ok {
			b.Fatal("declined")
		}
	}
}

// Every character the encoder treats specially is found wherever it is in
// a run of plain bytes, and at the end.
func TestQuoteFindsSpecialsAtEveryOffset(t *testing.T) {
	for _, special := range []string{`"`, `\`, "<", ">", "&", "\n", "\x00", "\x1f", "\u2028", "\u2029", "\u2027", "é", "\xff"} {
		for pad := 0; pad < 20; pad++ {
			raw := []byte(strings.Repeat("a", pad) + special + strings.Repeat("b", pad%9))
			got, ok := appendQuote([]byte("x"), raw)
			want, _ := json.Marshal(string(raw))
			switch {
			case ok && string(got) != "x"+string(want):
				t.Errorf("appendQuote(%q) = %s; json.Marshal gives %s", raw, got, want)
			case !ok && string(got) != "x":
				t.Errorf("appendQuote(%q) declined but changed dst to %q", raw, got)
			case !ok && string(want) == `"`+strings.ReplaceAll(strings.ReplaceAll(string(raw), `\`, `\\`), `"`, `\"`)+`"`:
				t.Errorf("appendQuote(%q) declined what the encoder only escapes", raw)
			}
		}
	}
}
