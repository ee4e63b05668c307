package host

import (
	"strings"
	"testing"
)

func TestValidPath(t *testing.T) {
	for _, p := range []string{"DIRECTIVES.md", "a/b/c.md", "MEMORY-INDEX.json", "x", "a_b-c.d", "9", strings.Repeat("a", 256)} {
		if !ValidPath(p) {
			t.Errorf("%q refused", p)
		}
	}
	for _, p := range []string{"", "/abs", "../x", "a/../b", "a..b", "a//b", "a/", ".x", "_x", "-x", "a b", "a\\b", "a\x00b", "café", strings.Repeat("a", 257), "a/./b/.."} {
		if ValidPath(p) {
			t.Errorf("%q accepted", p)
		}
	}
}

func TestParseETag(t *testing.T) {
	for in, want := range map[string]int64{`"v3"`: 3, `v3`: 3, `W/"v12"`: 12, `3`: 3, ` "v7" `: 7} {
		if got, ok := parseETag(in); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{``, `"v"`, `"v0"`, `"v-1"`, `"abc"`, `*`} {
		if _, ok := parseETag(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor([]Secret{{ID: "env.SHORTER", Value: "abcdefgh"}, {ID: "env.LONGER", Value: "abcdefgh-and-more"}})
	in := "x abcdefgh-and-more y abcdefgh z AKIAABCDEFGHIJKLMNOP -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- Authorization: Bearer zyxwvutsrqponmlkjihgfedcba0123 sk-proj-zyxwvutsrqponmlkjihgfedc"
	out, ids := r.Apply(in)
	want := "x [REDACTED:env.LONGER] y [REDACTED:env.SHORTER] z [REDACTED:aws-access-key] [REDACTED:private-key] Authorization: [REDACTED:bearer-token] [REDACTED:openai-key]"
	if out != want {
		t.Fatalf("got  %q\nwant %q", out, want)
	}
	if strings.Join(ids, ",") != "aws-access-key,bearer-token,env.LONGER,env.SHORTER,openai-key,private-key" {
		t.Fatalf("ids %v", ids)
	}
	if out, ids := r.Apply("plain text about keys and tokens"); out != "plain text about keys and tokens" || len(ids) != 0 {
		t.Fatalf("ordinary text changed: %q %v", out, ids)
	}
}

func TestSecretsTooShortAreRefused(t *testing.T) {
	if _, err := SecretFromEnv("X", func(string) string { return "short" }); err == nil {
		t.Fatal("a 5-byte secret was registered")
	}
	if _, err := SecretFromEnv("X", func(string) string { return "" }); err == nil {
		t.Fatal("an unset variable was registered")
	}
}

func TestPlaceholders(t *testing.T) {
	d := &DB{postgres: true}
	if got := d.q("a = ? AND b = ? OR c = ?"); got != "a = $1 AND b = $2 OR c = $3" {
		t.Fatal(got)
	}
	if got := (&DB{}).q("a = ?"); got != "a = ?" {
		t.Fatal(got)
	}
}
