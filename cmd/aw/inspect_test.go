package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// inspectTree builds a workspace next to a sibling that shares its name as
// a prefix (ws-evil), with symlinks inside and out.
func inspectTree(t *testing.T) (parent, ws string) {
	t.Helper()
	parent = t.TempDir()
	ws = filepath.Join(parent, "ws")
	evil := filepath.Join(parent, "ws-evil")
	outside := filepath.Join(parent, "outside")
	files := map[string]string{
		"ws/README.md":           "hello\nworld\n",
		"ws/src/a.go":            "package a\n\nfunc A() {}\n",
		"ws/.env":                "SECRET=1\n",
		"ws/.env.local":          "SECRET=2\n",
		"ws/sub/.env":            "SECRET=3\n",
		"ws/.git/HEAD":           "ref: refs/heads/main\n",
		"ws/.agentic/MEMORY.md":  "remember\n",
		"ws/node_modules/m/i.js": "module.exports = 1\n",
		"ws-evil/secret.txt":     "evil\n",
		"outside/secret.txt":     "outside\n",
		"outside/dir/inner.txt":  "inner\n",
	}
	for p, c := range files {
		full := filepath.Join(parent, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/link-out-file": filepath.Join(outside, "secret.txt"),
		"ws/link-out-dir":  outside,
		"ws/link-evil":     evil,
		"ws/dangling-out":  filepath.Join(outside, "nope", "gone.txt"),
		"ws/src/link-in":   "../README.md",
		"ws/link-src":      "src",
		"ws/link-env":      ".env",
		"ws/src/up":        "..",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(parent, l)); err != nil {
			t.Fatal(err)
		}
	}
	return parent, ws
}

func TestInspectJail(t *testing.T) {
	parent, ws := inspectTree(t)
	outside := filepath.Join(parent, "outside")
	refused := []struct{ action, path string }{
		{"read", "../outside/secret.txt"},
		{"read", "../../etc/passwd"},
		{"read", "src/../../outside/secret.txt"},
		{"read", "./././../ws-evil/secret.txt"},
		{"read", "/etc/passwd"},
		{"read", filepath.Join(outside, "secret.txt")},
		{"read", filepath.Join(parent, "ws-evil", "secret.txt")},
		{"read", "link-out-file"},
		{"read", "link-out-dir/secret.txt"},
		{"read", "link-out-dir/dir/inner.txt"},
		{"read", "link-evil/secret.txt"},
		{"read", "link-src/../../outside/secret.txt"},
		{"read", "src/up/../outside/secret.txt"},
		{"read", "dangling-out"},
		{"read", "README.md\x00.txt"},
		{"read", ".env"},
		{"read", ".env.local"},
		{"read", "sub/.env"},
		{"read", "link-env"},
		{"stat", "../outside"},
		{"stat", "link-out-file"},
		{"stat", "/"},
		{"stat", ".env"},
		{"list", "link-out-dir"},
		{"list", ".."},
		{"list", "../ws-evil"},
		{"search", "x|../outside"},
		{"search", "x|link-out-dir"},
		{"search", "x|/tmp"},
		{"find", "*|link-out-dir"},
		{"find", "*|../outside"},
		{"read", "src/link-in/../../outside/secret.txt"},
	}
	for _, c := range refused {
		t.Run("refuse "+c.action+" "+strings.ReplaceAll(c.path, "/", "_"), func(t *testing.T) {
			args := []string{"inspect", c.action, "--root", ws}
			if strings.ContainsRune(c.path, 0) {
				// argv cannot carry NUL: send it the way an MCP client would.
				args = []string{"call", "--root", ws, "workspace_inspect", `{"action":"` + c.action + `","path":"` + strings.ReplaceAll(c.path, "\x00", `\u0000`) + `"}`}
			} else if pat, p, ok := strings.Cut(c.path, "|"); ok {
				args = append(args, pat, p)
			} else {
				args = append(args, c.path)
			}
			r := runAW(t, ws, nil, args...)
			if r.Code != 1 || r.field(t, ".error.code") != "PATH_ESCAPE" {
				t.Fatalf("exit %d, want 1 with PATH_ESCAPE: %s", r.Code, r.Stdout)
			}
			if strings.Contains(string(r.Stdout), "SECRET") || strings.Contains(string(r.Stdout), "outside\\n") {
				t.Fatalf("refusal leaked content: %s", r.Stdout)
			}
		})
	}
	allowed := []struct{ action, path, want string }{
		{"read", filepath.Join(ws, "README.md"), "README.md"},
		{"read", "src/link-in", "README.md"},
		{"read", "link-src/a.go", "src/a.go"},
		{"read", "src/up/README.md", "README.md"},
		{"read", ".git/HEAD", ".git/HEAD"},
		{"read", ".agentic/MEMORY.md", ".agentic/MEMORY.md"},
		{"read", "node_modules/m/i.js", "node_modules/m/i.js"},
		{"stat", "src/link-in", "src/link-in"},
	}
	for _, c := range allowed {
		t.Run("allow "+c.action+" "+strings.ReplaceAll(c.path, "/", "_"), func(t *testing.T) {
			r := runAW(t, ws, nil, "inspect", c.action, "--root", ws, c.path)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stdout)
			}
			if got := r.field(t, ".data.path"); got != c.want {
				t.Fatalf("path %v, want %s", got, c.want)
			}
		})
	}
	// A root reached through a symlink works and reports relative paths.
	rootLink := filepath.Join(parent, "rootlink")
	if err := os.Symlink(ws, rootLink); err != nil {
		t.Fatal(err)
	}
	r := runAW(t, parent, nil, "inspect", "read", "--root", rootLink, filepath.Join(rootLink, "README.md"))
	if r.Code != 0 || r.field(t, ".data.path") != "README.md" {
		t.Fatalf("read through a symlinked root: %s", r.Stdout)
	}
	// Listings and searches never show denyPaths, never follow links out.
	r = runAW(t, ws, nil, "inspect", "list", "--root", ws, "--max-depth-unknown")
	if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("unknown flag: exit %d %s", r.Code, r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "list", "--root", ws)
	out := string(r.Stdout)
	for _, hidden := range []string{`".env"`, ".env.local", "sub/.env", "secret.txt", "node_modules", ".git/HEAD"} {
		if strings.Contains(out, hidden) {
			t.Errorf("list shows %s: %s", hidden, out)
		}
	}
	r = runAW(t, ws, nil, "inspect", "search", "--root", ws, "SECRET|outside|evil|inner")
	if r.Code != 0 || r.field(t, ".data.total").(float64) != 0 {
		t.Fatalf("search leaked: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "find", "--root", ws, "*")
	if strings.Contains(string(r.Stdout), ".env") || strings.Contains(string(r.Stdout), "secret") {
		t.Fatalf("find leaked: %s", r.Stdout)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInspectRead(t *testing.T) {
	ws := t.TempDir()
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	body := strings.Join(lines, "\n") + "\n"
	writeFile(t, filepath.Join(ws, "f.txt"), body)
	writeFile(t, filepath.Join(ws, "crlf.txt"), "a\r\nb\r\n")
	writeFile(t, filepath.Join(ws, "nonl.txt"), "x\ny")
	writeFile(t, filepath.Join(ws, "empty.txt"), "")
	writeFile(t, filepath.Join(ws, "bad.txt"), "ok\xff\xfeok\n")
	writeFile(t, filepath.Join(ws, "bin.dat"), "abc\x00def")
	writeFile(t, filepath.Join(ws, "long.txt"), strings.Repeat("é", 100)+"\nnext\n")
	sum := sha256.Sum256([]byte(body))

	cases := []struct {
		name string
		args []string
		code int
		want map[string]any
	}{
		{"whole", []string{"f.txt"}, 0, map[string]any{".data.startLine": 1.0, ".data.endLine": 30.0, ".data.totalLines": 30.0, ".data.truncated": false, ".data.sha256": hex.EncodeToString(sum[:]), ".data.totalBytes": float64(len(body))}},
		{"window", []string{"f.txt", "--start", "5", "--limit", "3"}, 0, map[string]any{".data.content": "     5\tline 5\n     6\tline 6\n     7\tline 7\n", ".data.endLine": 7.0, ".data.truncated": true, ".data.nextStart": 8.0, ".data.sha256": hex.EncodeToString(sum[:])}},
		{"byte ceiling keeps whole lines", []string{"f.txt", "--max-bytes", "30"}, 0, map[string]any{".data.content": "     1\tline 1\n     2\tline 2\n  ", ".data.endLine": 3.0, ".data.bytesCapped": true, ".data.truncated": true}},
		{"byte ceiling exact fit", []string{"f.txt", "--max-bytes", "28", "--limit", "2"}, 0, map[string]any{".data.endLine": 2.0, ".data.bytesCapped": false, ".data.truncated": true}},
		{"byte ceiling on a character boundary", []string{"long.txt", "--max-bytes", "12"}, 0, map[string]any{".data.content": "     1\téé", ".data.endLine": 1.0, ".data.bytesCapped": true, ".data.truncated": true}},
		{"past the end", []string{"f.txt", "--start", "99"}, 0, map[string]any{".data.content": "", ".data.endLine": 98.0, ".data.truncated": false}},
		{"crlf", []string{"crlf.txt"}, 0, map[string]any{".data.content": "     1\ta\n     2\tb\n", ".data.lineEnding": "crlf", ".data.totalLines": 2.0}},
		{"no trailing newline", []string{"nonl.txt"}, 0, map[string]any{".data.content": "     1\tx\n     2\ty", ".data.totalLines": 2.0}},
		{"empty", []string{"empty.txt"}, 0, map[string]any{".data.content": "", ".data.totalLines": 0.0, ".data.sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}},
		{"invalid utf-8", []string{"bad.txt"}, 0, map[string]any{".data.invalidUtf8": true, ".data.content": "     1\tok\uFFFDok\n"}},
		{"binary", []string{"bin.dat"}, 2, map[string]any{".error.code": "INVALID_INPUT", ".error.details.reason": "binary"}},
		{"directory", []string{"."}, 2, map[string]any{".error.code": "INVALID_INPUT"}},
		{"missing file", []string{"nope.txt"}, 1, map[string]any{".error.code": "NOT_FOUND"}},
		{"missing argument", []string{}, 2, map[string]any{".error.code": "INVALID_INPUT"}},
		{"negative start", []string{"f.txt", "--start", "-1"}, 2, map[string]any{".error.code": "INVALID_INPUT"}},
		{"bad flag value", []string{"f.txt", "--limit", "lots"}, 2, map[string]any{".error.code": "INVALID_INPUT"}},
		{"too many args", []string{"f.txt", "g.txt"}, 2, map[string]any{".error.code": "INVALID_INPUT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runAW(t, ws, nil, append([]string{"inspect", "read"}, c.args...)...)
			if r.Code != c.code {
				t.Fatalf("exit %d, want %d: %s", r.Code, c.code, r.Stdout)
			}
			for path, want := range c.want {
				if got := r.field(t, path); got != want {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
		})
	}
	// --input supplies the path; a flag overrides its fields.
	r := runAW(t, ws, []byte(`{"path":"f.txt","start_line":2,"limit":1}`), "inspect", "read", "--input", "-", "--start", "4")
	if r.Code != 0 || r.field(t, ".data.content") != "     4\tline 4\n" {
		t.Fatalf("--input: %s", r.Stdout)
	}
	r = runAW(t, ws, []byte(`{"path":`), "inspect", "read", "--input", "-")
	if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Fatalf("malformed --input: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "call", "workspace_inspect", `{"action":"read","path":"f.txt","limit":1}`)
	if r.Code != 0 || r.field(t, ".operation") != "inspect.read" || r.field(t, ".data.endLine") != 1.0 {
		t.Fatalf("aw call: %s", r.Stdout)
	}
	// maxToolResultChars cuts the window and says where to go on.
	writeFile(t, filepath.Join(ws, ".agentic", "config.json"), `{"maxToolResultChars": 1000}`)
	var big strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&big, "row %03d %s\n", i, strings.Repeat("x", 40))
	}
	writeFile(t, filepath.Join(ws, "big.txt"), big.String())
	r = runAW(t, ws, nil, "inspect", "read", "big.txt")
	content := r.field(t, ".data.content").(string)
	if len([]rune(content)) > 1000 || r.field(t, ".data.truncated") != true || !strings.Contains(r.field(t, ".summary").(string), "--start") {
		t.Fatalf("envelope bound: %d chars, %s", len(content), r.Stdout[:300])
	}
}

func TestInspectSearch(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".gitignore"), "*.log\nbuild/\n")
	writeFile(t, filepath.Join(ws, "a.go"), "package a\n// TODO one\nfunc A() {}\n")
	writeFile(t, filepath.Join(ws, "app.log"), "TODO ignored\n")
	writeFile(t, filepath.Join(ws, "build", "out.go"), "TODO ignored\n")
	writeFile(t, filepath.Join(ws, "sub", ".gitignore"), "gen.go\n!keep.log\n")
	writeFile(t, filepath.Join(ws, "sub", "gen.go"), "TODO ignored\n")
	writeFile(t, filepath.Join(ws, "sub", "keep.log"), "TODO kept\n")
	writeFile(t, filepath.Join(ws, "sub", "b.md"), "x\ntodo lower\ny\n")
	writeFile(t, filepath.Join(ws, "bin.dat"), "TODO\x00binary")
	writeFile(t, filepath.Join(ws, "node_modules", "m.js"), "TODO hidden\n")
	writeFile(t, filepath.Join(ws, ".env"), "TODO secret\n")

	paths := func(r Result) string {
		var out []string
		for _, m := range r.field(t, ".data.matches").([]any) {
			mm := m.(map[string]any)
			out = append(out, fmt.Sprintf("%s:%v", mm["path"], mm["line"]))
		}
		return strings.Join(out, " ")
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"gitignore nested, binary skipped", []string{"TODO"}, "a.go:2 sub/keep.log:1"},
		{"ignore case", []string{"todo", "--ignore-case"}, "a.go:2 sub/b.md:2 sub/keep.log:1"},
		{"fixed", []string{"A()", "--fixed"}, "a.go:3"},
		{"regex", []string{`func [A-Z]\(\)`}, "a.go:3"},
		{"glob", []string{"(?i)todo", "--glob", "*.md"}, "sub/b.md:2"},
		{"glob exclude", []string{"(?i)todo", "--glob", "!*.md"}, "a.go:2 sub/keep.log:1"},
		{"path", []string{"(?i)todo", "sub"}, "sub/b.md:2 sub/keep.log:1"},
		{"ignored dir named directly", []string{"TODO", "node_modules"}, "node_modules/m.js:1"},
		{"max results", []string{"(?i)todo", "--max-results", "1"}, "a.go:2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runAW(t, ws, nil, append([]string{"inspect", "search"}, c.args...)...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stdout)
			}
			if got := paths(r); got != c.want {
				t.Fatalf("matches %q, want %q", got, c.want)
			}
		})
	}
	r := runAW(t, ws, nil, "inspect", "search", "lower", "--context", "1")
	m := r.field(t, ".data.matches.0").(map[string]any)
	if fmt.Sprint(m["before"]) != "[x]" || fmt.Sprint(m["after"]) != "[y]" || m["column"] != 6.0 {
		t.Fatalf("context: %s", r.Stdout)
	}
	for _, bad := range [][]string{{"a(b"}, {strings.Repeat("a", 1001)}, {}, {"x", "--context", "-1"}, {"x", "--bogus"}} {
		r := runAW(t, ws, nil, append([]string{"inspect", "search"}, bad...)...)
		if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
			t.Fatalf("%q: exit %d %s", bad, r.Code, r.Stdout)
		}
	}
	r = runAW(t, ws, nil, "inspect", "search", strings.Repeat("a", 1001))
	if r.field(t, ".error.details.reason") != "unsafe-pattern" {
		t.Fatalf("long pattern: %s", r.Stdout)
	}
	// A large result spills to an artifact; the inline list stays bounded.
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "needle %d %s\n", i, strings.Repeat("z", 30))
	}
	writeFile(t, filepath.Join(ws, "many.txt"), b.String())
	r = runAW(t, ws, nil, "inspect", "search", "needle", "--max-results", "2500")
	if r.field(t, ".data.total") != 2500.0 || r.field(t, ".data.truncated") != true {
		t.Fatalf("cap: %s", r.Stdout[:400])
	}
	art := r.field(t, ".artifacts.0.path").(string)
	raw, err := os.ReadFile(filepath.Join(ws, art))
	if err != nil || strings.Count(string(raw), "\n") != 2500 {
		t.Fatalf("artifact %s: %v, %d lines", art, err, strings.Count(string(raw), "\n"))
	}
	if len(r.Stdout) > 25000 {
		t.Fatalf("inline result is %d bytes", len(r.Stdout))
	}
}

func TestInspectOther(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "src", "a.go"), "package a\n")
	writeFile(t, filepath.Join(ws, "src", "deep", "b.go"), "package b\n\n")
	writeFile(t, filepath.Join(ws, "docs", "x.md"), "# x\n")
	writeFile(t, filepath.Join(ws, ".gitignore"), "gen/\n")
	writeFile(t, filepath.Join(ws, "gen", "g.go"), "package g\n")
	writeFile(t, filepath.Join(ws, ".agentic", "transactions", "tx_1", "transaction.json"),
		`{"id":"tx_1","status":"applied","files":[{"path":"a"},{"path":"b"}],"directories":[],"createdAt":"2026-01-01T00:00:00Z"}`)
	writeFile(t, filepath.Join(ws, ".agentic", "jobs", "job_1", "job.json"), `{"id":"job_1","status":"exited","executable":"go","exitCode":0}`)

	r := runAW(t, ws, nil, "inspect", "find", "*.go")
	if got := fmt.Sprint(r.field(t, ".data.paths")); got != "[src/a.go src/deep/b.go]" {
		t.Fatalf("find: %s", got)
	}
	r = runAW(t, ws, nil, "inspect", "find", "deep/*.go", "src")
	if got := fmt.Sprint(r.field(t, ".data.paths")); got != "[src/deep/b.go]" {
		t.Fatalf("find under PATH: %s", got)
	}
	r = runAW(t, ws, nil, "inspect", "list", "--depth", "1")
	var names []string
	for _, e := range r.field(t, ".data.entries").([]any) {
		names = append(names, e.(map[string]any)["path"].(string))
	}
	if got := strings.Join(names, " "); got != ".agentic .gitignore docs gen src" {
		t.Fatalf("list depth 1: %s", got)
	}
	r = runAW(t, ws, nil, "inspect", "list", "src", "--ignore", "deep")
	if got := fmt.Sprint(r.field(t, ".data.entries")); strings.Contains(got, "deep") {
		t.Fatalf("--ignore: %s", got)
	}
	r = runAW(t, ws, nil, "inspect", "stat", "src/deep/b.go")
	if r.field(t, ".data.lines") != 2.0 || r.field(t, ".data.mode") != "-rw-r--r--" || r.field(t, ".data.modeOctal") != "0644" || r.field(t, ".data.type") != "file" {
		t.Fatalf("stat: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "changes")
	if r.field(t, ".data.transactions.0.fileCount") != 2.0 || r.field(t, ".data.jobs.0.id") != "job_1" {
		t.Fatalf("changes: %s", r.Stdout)
	}
	for _, omit := range r.field(t, ".retention.omit_when_summarizing").([]any) {
		if omit == "data.jobs" {
			t.Fatal("jobs must never be omitted when summarizing")
		}
	}
	writeFile(t, filepath.Join(ws, ".agentic", "jobs", "job_2", "job.json"), `{broken`)
	r = runAW(t, ws, nil, "inspect", "changes")
	if r.Code != 1 || r.field(t, ".error.code") != "INTERNAL" || !strings.Contains(r.field(t, ".error.message").(string), "job_2/job.json") {
		t.Fatalf("broken state: %s", r.Stdout)
	}
	r = runAW(t, ws, nil, "inspect", "overview")
	if r.field(t, ".data.permissionLevel") != "plan" || r.field(t, ".data.tree.depth") != 2.0 {
		t.Fatalf("overview: %s", r.Stdout)
	}
	for _, bad := range [][]string{{"inspect"}, {"inspect", "nope"}, {"inspect", "stat"}, {"inspect", "find"}, {"inspect", "list", "--depth", "-2"}, {"inspect", "capabilities", "extra"}} {
		r := runAW(t, ws, nil, bad...)
		if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
			t.Fatalf("%q: exit %d %s", bad, r.Code, r.Stdout)
		}
	}
}

// TestReadLongLineInPieces reads a line longer than maxToolResultChars in
// pieces with --start-column: each window says it is truncated, gives the
// exact --start and --start-column to continue (in data and in facts), and
// the pieces put together are the line, multi-byte characters included.
func TestReadLongLineInPieces(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"maxToolResultChars": 1000}`), 0o644)
	var long strings.Builder
	for i := 0; long.Len() < 7000; i++ {
		long.WriteString([]string{"abc", "é", "日本", " x"}[i%4])
	}
	os.WriteFile(filepath.Join(dir, "long.txt"), []byte("\ufefffirst\n"+long.String()+"\nlast\n"), 0o644)

	first := runAW(t, dir, nil, "inspect", "read", "long.txt")
	if first.field(t, ".data.truncated") != true || first.field(t, ".data.nextStart") != 2.0 || first.field(t, ".data.endLine") != 1.0 {
		t.Fatalf("a window stopped before a long line must say truncated and --start 2: %s", first.Stdout)
	}
	facts, _ := json.Marshal(first.field(t, ".retention.facts"))
	if !strings.Contains(string(facts), "--start 2") {
		t.Errorf("the facts must carry the continuation: %s", facts)
	}
	var got strings.Builder
	col := 1.0
	for piece := 0; ; piece++ {
		if piece > 50 {
			t.Fatalf("reading in pieces does not end: %s", got.String()[:200])
		}
		r := runAW(t, dir, nil, "inspect", "read", "long.txt", "--start", "2", "--limit", "1", "--start-column", strconv.Itoa(int(col)))
		if n := len(r.Stdout); n > 1000*4+envelopeOverhead {
			t.Fatalf("piece %d envelope is %d bytes", piece, n)
		}
		content := r.field(t, ".data.content").(string)
		text, ok := strings.CutPrefix(content, "     2\t")
		if !ok {
			t.Fatalf("piece %d does not show line 2: %q", piece, content)
		}
		got.WriteString(strings.TrimSuffix(text, "\n"))
		next, more := r.Env["data"].(map[string]any)["nextColumn"].(float64)
		if !more {
			if r.field(t, ".data.nextStart") != 3.0 {
				t.Errorf("the last piece must continue with --start 3: %s", r.Stdout)
			}
			break
		}
		if r.field(t, ".data.truncated") != true || r.field(t, ".data.nextStart") != 2.0 || next <= col {
			t.Fatalf("piece %d: truncated %v, nextStart %v, nextColumn %v after %v", piece, r.field(t, ".data.truncated"), r.field(t, ".data.nextStart"), next, col)
		}
		facts, _ := json.Marshal(r.field(t, ".retention.facts"))
		if want := fmt.Sprintf("--start-column %d", int(next)); !strings.Contains(string(facts), want) || !strings.Contains(r.field(t, ".summary").(string), want) {
			t.Errorf("piece %d: summary and facts must say %q: %s", piece, want, r.Stdout)
		}
		col = next
	}
	if got.String() != long.String() {
		t.Errorf("the pieces put together differ from the line (%d vs %d bytes)", got.Len(), long.Len())
	}
	// The BOM is not a column: column 1 of line 1 is its first character.
	if r := runAW(t, dir, nil, "inspect", "read", "long.txt", "--limit", "1", "--start-column", "2"); r.field(t, ".data.content") != "     1\tirst\n" {
		t.Errorf("--start-column 2 of a line after a BOM: %q", r.field(t, ".data.content"))
	}
	if r := runAW(t, dir, nil, "inspect", "read", "long.txt", "--start-column", "-1"); r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("a negative --start-column: exit %d %s", r.Code, r.Stdout)
	}
}
