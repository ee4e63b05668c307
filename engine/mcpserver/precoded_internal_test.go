package mcpserver

import (
	"encoding/json"
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
