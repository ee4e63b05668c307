package visible

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndBlock(t *testing.T) {
	cases := []struct{ in, line, block string }{
		{"plain text, ünïcode, 日本", "plain text, ünïcode, 日本", "plain text, ünïcode, 日本"},
		{"a\rb", `a\rb`, `a\rb`},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"\x1b[2Kx", `\x1b[2Kx`, `\x1b[2Kx`},
		{"ab\b\bcd", `ab\b\bcd`, `ab\b\bcd`},
		{"\x00\x07\x7f", `\x00\a\x7f`, `\x00\a\x7f`},
		{"\u009b2K", `\u009b2K`, `\u009b2K`},                   // C1 CSI
		{"a\u202eexe.txt", `a\u202eexe.txt`, `a\u202eexe.txt`}, // right-to-left override
		{"\u2066x\u2069", `\u2066x\u2069`, `\u2066x\u2069`},    // isolates
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`, `zero\u200bwidth\ufeff`},
		{"tag\U000e0041", `tag\U000e0041`, `tag\U000e0041`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
		{`already \x1b`, `already \x1b`, `already \x1b`},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Block(c.in); got != c.block {
			t.Errorf("Block(%q) = %q, want %q", c.in, got, c.block)
		}
	}
}

// FuzzVisible: whatever the input, Line leaves nothing a terminal would
// obey or hide, Block leaves only newlines and tabs, and JSON escaping
// decodes to the same string.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"", "x\r\x1b[2K", "\u202e\u2066\U000e0041", "\xff\xfe", "\u0085\u009b", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Block(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
			}
		}
		for _, r := range Line(s) {
			if Hidden(r) {
				t.Fatalf("Line(%q) kept %U", s, r)
			}
		}
		for _, r := range Block(s) {
			if Hidden(r) && r != '\n' && r != '\t' {
				t.Fatalf("Block(%q) kept %U", s, r)
			}
		}
		doc, _ := json.Marshal(map[string]string{"k": s})
		safe := JSON(doc)
		for _, r := range string(safe) {
			if Hidden(r) {
				t.Fatalf("JSON of %q kept %U: %q", s, r, safe)
			}
		}
		var back, want map[string]string
		if err := json.Unmarshal(safe, &back); err != nil {
			t.Fatalf("JSON of %q does not decode: %v: %q", s, err, safe)
		}
		json.Unmarshal(doc, &want)
		if back["k"] != want["k"] {
			t.Fatalf("JSON of %q decodes to %q, want %q", s, back["k"], want["k"])
		}
	})
}

func TestJSONUnchangedWhenClean(t *testing.T) {
	doc := []byte(`{"summary":"ok","data":{"text":"plain \u001b escaped by encoding/json, 日本"}}`)
	if got := JSON(doc); !bytes.Equal(got, doc) {
		t.Fatalf("a clean document changed: %s", got)
	}
}

func BenchmarkLinePlain(b *testing.B) {
	s := strings.Repeat("an ordinary title with words, paths/like/this.go and ünïcode ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Line(s)
	}
}

func BenchmarkJSONPlain(b *testing.B) {
	doc := []byte(strings.Repeat(`{"k":"an ordinary value, ünïcode 日本"},`, 500))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		JSON(doc)
	}
}
