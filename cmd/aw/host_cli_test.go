package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostCLI drives aw host against a real server: every verb, the
// refusals (no host, another URL than host.url, no token, a conflict, a
// missing file) and their codes.
func TestHostCLI(t *testing.T) {
	st := newHostStore(t, hostBackends()[0])
	h := st.serve(t)
	tok := st.token(t, "cli", "w")
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".agentic"), 0o755)
	tokEnv := "AW_HOST_TOKEN=" + tok
	aw := func(stdin string, env []string, args ...string) Result {
		var in []byte
		if stdin != "" {
			in = []byte(stdin)
		}
		return runAWEnv(t, ws, in, env, args...)
	}
	wantErr := func(r Result, code string) {
		t.Helper()
		if r.Code == 0 || r.field(t, ".error.code") != code {
			t.Fatalf("want %s: exit %d %s", code, r.Code, r.Stdout)
		}
	}
	// No host configured and no --url.
	wantErr(aw("", []string{tokEnv}, "host", "ls"), "INVALID_INPUT")
	// --url without host.url works (the human gave the token, not a URL).
	if r := aw("", []string{tokEnv}, "host", "ls", "--url", h.url); r.Code != 0 {
		t.Fatalf("%s", r.Stdout)
	}
	os.WriteFile(filepath.Join(ws, ".agentic", "config.json"), []byte(`{"host":{"url":"`+h.url+`"}}`), 0o644)
	// With host.url set, the token goes nowhere else.
	r := aw("", []string{tokEnv}, "host", "ls", "--url", "http://127.0.0.1:1")
	wantErr(r, "INVALID_INPUT")
	if !strings.Contains(string(r.Stdout), "host.url") {
		t.Fatalf("%s", r.Stdout)
	}
	wantErr(aw("", []string{"AW_HOST_TOKEN="}, "host", "ls"), "INVALID_INPUT")
	wantErr(aw("", []string{"AW_HOST_TOKEN=awh_bogus"}, "host", "ls"), "INVALID_INPUT")
	wantErr(aw("", []string{tokEnv}, "host", "ls", "--tier", "read"), "TOOL_DISABLED")

	put := aw("Be brief.\n", []string{tokEnv}, "host", "put", "DIRECTIVES.md")
	if put.Code != 0 || put.field(t, ".data.version") != 1.0 || put.field(t, ".data.etag") != `"v1"` {
		t.Fatalf("put: %s", put.Stdout)
	}
	if r := aw("", []string{tokEnv}, "host", "put", "DIRECTIVES.md", "--content", "Be briefer.", "--if-match", `"v1"`); r.Code != 0 {
		t.Fatalf("%s", r.Stdout)
	}
	c := aw("", []string{tokEnv}, "host", "put", "DIRECTIVES.md", "--content", "lost", "--if-match", `"v1"`)
	wantErr(c, "EDIT_CONFLICT")
	if c.field(t, ".error.details.currentVersion") != 2.0 || c.field(t, ".error.details.hostCode") != "workspace_conflict" {
		t.Fatalf("%s", c.Stdout)
	}
	wantErr(aw("", []string{tokEnv}, "host", "put", "../etc/passwd", "--content", "x"), "INVALID_INPUT")
	wantErr(aw("", []string{tokEnv}, "host", "put", "a.md", "--content", "x", "--content-type", "a\nb"), "INVALID_INPUT")
	g := aw("", []string{tokEnv}, "host", "get", "DIRECTIVES.md", "--version", "1")
	if g.Code != 0 || g.field(t, ".data.content") != "Be brief.\n" {
		t.Fatalf("get: %s", g.Stdout)
	}
	// A file larger than an envelope carries inline: cut, the whole in an artifact.
	big := strings.Repeat("0123456789", 3000)
	if r := aw(big, []string{tokEnv}, "host", "put", "big.md"); r.Code != 0 {
		t.Fatalf("%s", r.Stdout)
	}
	bg := aw("", []string{tokEnv}, "host", "get", "big.md")
	if bg.Code != 0 || bg.field(t, ".data.truncated") != true || bg.field(t, ".data.bytes") != 30000.0 || len(bg.field(t, ".data.content").(string)) > 20000+len("…") {
		t.Fatalf("big get: %.300s", bg.Stdout)
	}
	art := bg.field(t, ".artifacts.0.path").(string)
	if raw, err := os.ReadFile(filepath.Join(ws, art)); err != nil || string(raw) != big {
		t.Fatalf("artifact %s: %v", art, err)
	}
	wantErr(aw("", []string{tokEnv}, "host", "get", "nope.md"), "NOT_FOUND")
	wantErr(aw("", []string{tokEnv}, "host", "get"), "INVALID_INPUT")
	if l := aw("", []string{tokEnv}, "host", "ls", "DIR"); l.Code != 0 || l.field(t, ".data.files.0.path") != "DIRECTIVES.md" {
		t.Fatalf("ls: %s", l.Stdout)
	}
	if hi := aw("", []string{tokEnv}, "host", "history", "DIRECTIVES.md"); hi.Code != 0 || hi.field(t, ".data.versions.1.version") != 1.0 {
		t.Fatalf("history: %s", hi.Stdout)
	}
	w := aw("", []string{tokEnv}, "host", "watch", "--after", "0", "--count", "2", "--timeout", "5")
	if w.Code != 0 || w.field(t, ".data.last_event_id") != 2.0 || w.field(t, ".data.events.1.version") != 2.0 {
		t.Fatalf("watch: %s", w.Stdout)
	}
	if w := aw("", []string{tokEnv}, "host", "watch", "--timeout", "1"); w.Code != 0 || len(w.field(t, ".data.events").([]any)) != 0 {
		t.Fatalf("watch from now: %s", w.Stdout)
	}
	wantErr(aw("", []string{tokEnv}, "host", "watch", "--count", "5000"), "INVALID_INPUT")
	if rm := aw("", []string{tokEnv}, "host", "rm", "DIRECTIVES.md", "--if-match", `"v2"`); rm.Code != 0 || rm.field(t, ".data.version") != 3.0 {
		t.Fatalf("rm: %s", rm.Stdout)
	}
	wantErr(aw("", []string{tokEnv}, "host", "rm", "DIRECTIVES.md"), "NOT_FOUND")
	h.stop()
	wantErr(aw("", []string{tokEnv}, "host", "ls"), "NETWORK_ERROR")
}

// TestHostServeRefusals: the token verbs are the human's; aw serve refuses
// plain HTTP beyond loopback, two stores at once and short secrets.
func TestHostServeRefusals(t *testing.T) {
	st := newHostStore(t, hostBackends()[0])
	dir := t.TempDir()
	wantErr := func(r Result, code string) {
		t.Helper()
		if r.Code == 0 || r.field(t, ".error.code") != code {
			t.Fatalf("want %s: exit %d %s", code, r.Code, r.Stdout)
		}
	}
	for _, verb := range [][]string{{"add", "--tenant", "t", "--workspace", "w"}, {"list"}, {"revoke", "x"}} {
		wantErr(runAW(t, dir, nil, append(append([]string{"serve", "token"}, verb...), "--data", st.data)...), "HUMAN_REQUIRED")
	}
	human := st.humanEnv()
	wantErr(runAWEnv(t, dir, nil, human, "serve", "token", "add", "--tenant", "t", "--data", st.data), "INVALID_INPUT")
	wantErr(runAWEnv(t, dir, nil, human, "serve", "token", "add", "--tenant", "t/../x", "--workspace", "w", "--data", st.data), "INVALID_INPUT")
	wantErr(runAWEnv(t, dir, nil, human, "serve", "token", "revoke", "nobody", "--data", st.data), "NOT_FOUND")
	tok := st.token(t, "t", "w")
	l := runAWEnv(t, dir, nil, human, "serve", "token", "list", "--data", st.data)
	if l.Code != 0 || strings.Contains(string(l.Stdout), tok) || l.field(t, ".data.tokens.0.tenant") != "t" {
		t.Fatalf("list: %s", l.Stdout)
	}
	wantErr(runAW(t, dir, nil, "serve", "--listen", "0.0.0.0:0", "--data", st.data), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--listen", "nonsense", "--data", st.data), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--data", st.data, "--db", "postgres://x@y/z"), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--db", "mysql://x@y/z"), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--listen", "127.0.0.1:0", "--data", st.data, "--tls-cert", "x"), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--listen", "127.0.0.1:0", "--data", st.data, "--max-files", "0"), "INVALID_INPUT")
	wantErr(runAWEnv(t, dir, nil, []string{"SHORT=abc"}, "serve", "--listen", "127.0.0.1:0", "--data", st.data, "--secret-env", "SHORT"), "INVALID_INPUT")
	wantErr(runAW(t, dir, nil, "serve", "--listen", "127.0.0.1:0", "--data", st.data, "--secret-env", "AW_UNSET_FOR_TEST"), "INVALID_INPUT")
}
