package main

// Black-box rules of `aw edit` (workspace_edit and its gate):
// one test or table row per rule, each against the built binary in a real
// temporary workspace whose mode is set by .agentic/config.json.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Settings used by the tests (settings come from .agentic/config.json only).
const (
	cfgAuto        = `{"permissionMode":2,"allowDestructiveEdits":true}`
	cfgAutoSafe    = `{"permissionMode":2}`
	cfgPlan        = `{"permissionMode":1,"allowDestructiveEdits":true}`
	cfgPlanSafe    = `{"permissionMode":1}`
	cfgManual      = `{"permissionMode":0,"allowDestructiveEdits":true}`
	cfgManualSafe  = `{"permissionMode":0}`
	absent         = "\x00absent"    // want: the path does not exist
	isDir          = "\x00directory" // want: the path is a directory
	isDirSetup     = isDir           // setup: make a directory
	exitOK         = 0
	exitFailed     = 1
	exitUsage      = 2
	exitPending    = 3
	codeInvalid    = "INVALID_INPUT"
	codeConflict   = "EDIT_CONFLICT"
	codeNotFound   = "NOT_FOUND"
	codeProtected  = "PROTECTED_PATH"
	codeEscape     = "PATH_ESCAPE"
	codeApprovalRq = "APPROVAL_REQUIRED"
)

// ews is one temporary workspace.
type ews struct {
	t   *testing.T
	dir string
}

func newEWS(t *testing.T, cfg string) *ews {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &ews{t: t, dir: dir}
	w.config(cfg)
	return w
}

func (w *ews) config(cfg string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Join(w.dir, ".agentic"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *ews) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// setup writes files; the value isDirSetup makes a directory.
func (w *ews) setup(files map[string]string) {
	w.t.Helper()
	for rel, content := range files {
		if content == isDirSetup {
			if err := os.MkdirAll(w.abs(rel), 0o755); err != nil {
				w.t.Fatal(err)
			}
			continue
		}
		w.write(rel, content)
	}
}

func (w *ews) write(rel, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(w.abs(rel)), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.abs(rel), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// state is what is at rel: its content, absent or isDir.
func (w *ews) state(rel string) string {
	fi, err := os.Lstat(w.abs(rel))
	if err != nil {
		return absent
	}
	if fi.IsDir() {
		return isDir
	}
	b, err := os.ReadFile(w.abs(rel))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// check compares paths with wanted states.
func (w *ews) check(want map[string]string) {
	w.t.Helper()
	for rel, s := range want {
		if got := w.state(rel); got != s {
			w.t.Errorf("%s is %q, want %q", rel, show(got), show(s))
		}
	}
}

func show(s string) string {
	switch s {
	case absent:
		return "<absent>"
	case isDir:
		return "<directory>"
	}
	return s
}

// snapshot is every path of the workspace outside .agentic, with its state:
// "nothing on disk changed" is snapshot equality.
func (w *ews) snapshot() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(w.dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".agentic" {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "symlink:" + target
			return nil
		}
		out[rel] = w.state(rel)
		return nil
	})
	return out
}

func (w *ews) sameAs(before map[string]string, what string) {
	w.t.Helper()
	if after := w.snapshot(); !reflect.DeepEqual(before, after) {
		w.t.Errorf("%s changed the workspace:\nbefore %v\nafter  %v", what, before, after)
	}
}

func (w *ews) aw(args ...string) Result {
	w.t.Helper()
	return runAW(w.t, w.dir, nil, args...)
}

// edit runs `aw edit ACTION --op OP...`.
func (w *ews) edit(action string, ops ...string) Result {
	w.t.Helper()
	args := []string{"edit", action}
	for _, op := range ops {
		args = append(args, "--op", op)
	}
	return w.aw(args...)
}

// approvals is the number of records in .agentic/approvals/state.json.
func (w *ews) approvals() int {
	w.t.Helper()
	raw, err := os.ReadFile(w.abs(".agentic/approvals/state.json"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		w.t.Fatal(err)
	}
	var s struct {
		Records []json.RawMessage `json:"records"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		w.t.Fatalf("state.json: %v", err)
	}
	return len(s.Records)
}

// wantOK fails unless r succeeded with the exit code.
func wantOK(t *testing.T, r Result, exit int) {
	t.Helper()
	if r.Code != exit || r.Env["ok"] != true {
		t.Fatalf("exit %d ok %v, want exit %d ok: %s", r.Code, r.Env["ok"], exit, r.Stdout)
	}
}

// wantErr fails unless r failed with code and exit, its message holding
// every one of msg.
func wantErr(t *testing.T, r Result, code string, exit int, msg ...string) string {
	t.Helper()
	if r.Env["ok"] != false {
		t.Fatalf("succeeded, want %s: %s", code, r.Stdout)
	}
	if got := r.field(t, ".error.code"); got != code {
		t.Fatalf("error %v, want %s: %s", got, code, r.Stdout)
	}
	if r.Code != exit {
		t.Fatalf("exit %d, want %d: %s", r.Code, exit, r.Stdout)
	}
	m, _ := r.field(t, ".error.message").(string)
	for _, s := range msg {
		if !strings.Contains(m, s) {
			t.Errorf("message %q does not name %q", m, s)
		}
	}
	if strings.Contains(string(r.Stderr), "panic") || strings.Contains(string(r.Stderr), "goroutine ") {
		t.Fatalf("stderr shows a panic: %s", r.Stderr)
	}
	return m
}

func str(t *testing.T, r Result, path string) string {
	t.Helper()
	s, ok := r.field(t, path).(string)
	if !ok {
		t.Fatalf("%s is %v, not a string: %s", path, r.field(t, path), r.Stdout)
	}
	return s
}

func boolean(t *testing.T, r Result, path string) bool {
	t.Helper()
	b, ok := r.field(t, path).(bool)
	if !ok {
		t.Fatalf("%s is %v, not a bool: %s", path, r.field(t, path), r.Stdout)
	}
	return b
}

func list(t *testing.T, r Result, path string) []any {
	t.Helper()
	v := r.field(t, path)
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%s is %v, not a list: %s", path, v, r.Stdout)
	}
	return l
}

func hasFact(t *testing.T, r Result, want string) {
	t.Helper()
	for _, f := range list(t, r, ".retention.facts") {
		if f == want {
			return
		}
	}
	t.Errorf("retention.facts lack %q: %v", want, r.field(t, ".retention.facts"))
}

// ruleCase is one operation rule: the files before, the operations, and
// either the error (preview and apply both refuse, nothing changes) or the
// destructive classification and the files after a committed apply.
type ruleCase struct {
	name        string
	files       map[string]string
	ops         []string
	err         string   // error code; "" when the operations are valid
	exit        int      // exit code of a refusal (default: 2 for INVALID_INPUT, else 1)
	msg         []string // substrings of the error message
	destructive bool
	reasons     []string // substrings of data.destructiveReasons
	after       map[string]string
}

// runRules checks each case. A valid case is previewed (destructive and
// destructiveReasons), then applied without allowDestructiveEdits (refused
// PROTECTED_PATH, nothing changed, when destructive), then applied with it.
func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newEWS(t, cfgAutoSafe)
			w.setup(tc.files)
			before := w.snapshot()
			pre := w.edit("preview", tc.ops...)
			if tc.err != "" {
				exit := tc.exit
				if exit == 0 {
					exit = exitFailed
					if tc.err == codeInvalid {
						exit = exitUsage
					}
				}
				wantErr(t, pre, tc.err, exit, tc.msg...)
				w.config(cfgAuto)
				wantErr(t, w.edit("apply", tc.ops...), tc.err, exit, tc.msg...)
				w.sameAs(before, "a refused edit")
				return
			}
			wantOK(t, pre, exitOK)
			w.sameAs(before, "preview")
			if got := boolean(t, pre, ".data.destructive"); got != tc.destructive {
				t.Fatalf("destructive %v, want %v: %s", got, tc.destructive, pre.Stdout)
			}
			reasons := list(t, pre, ".data.destructiveReasons")
			if !tc.destructive && len(reasons) > 0 {
				t.Errorf("destructiveReasons %v on a non-destructive edit", reasons)
			}
			all := ""
			for _, r := range reasons {
				all += r.(string) + "\n"
			}
			for _, s := range tc.reasons {
				if !strings.Contains(all, s) {
					t.Errorf("destructiveReasons %q do not name %q", all, s)
				}
			}
			ap := w.edit("apply", tc.ops...)
			if tc.destructive {
				wantErr(t, ap, codeProtected, exitFailed, "allowDestructiveEdits")
				w.sameAs(before, "a refused destructive apply")
				w.config(cfgAuto)
				ap = w.edit("apply", tc.ops...)
			}
			wantOK(t, ap, exitOK)
			if s := str(t, ap, ".data.status"); s != "applied" || !boolean(t, ap, ".data.committed") {
				t.Fatalf("status %s, want applied and committed: %s", s, ap.Stdout)
			}
			w.check(tc.after)
		})
	}
}

func TestEditCreateRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "new file with its parents", ops: []string{`{"type":"create","path":"a/b/c.txt","content":"hi\n"}`},
			after: map[string]string{"a/b/c.txt": "hi\n", "a/b": isDir}},
		{name: "empty content makes an empty file", ops: []string{`{"type":"create","path":"e.txt","content":""}`},
			after: map[string]string{"e.txt": ""}},
		{name: "existing target without overwrite", files: map[string]string{"x.txt": "old\n"},
			ops: []string{`{"type":"create","path":"x.txt","content":"new\n"}`},
			err: codeConflict, msg: []string{"x.txt", "already exists"}},
		{name: "overwrite over an existing file is destructive", files: map[string]string{"x.txt": "old\n"},
			ops:         []string{`{"type":"create","path":"x.txt","content":"new\n","overwrite":true}`},
			destructive: true, reasons: []string{"x.txt", "overwrite"}, after: map[string]string{"x.txt": "new\n"}},
		{name: "overwrite where the target does not exist is not destructive",
			ops:   []string{`{"type":"create","path":"scaffold/x.txt","content":"new\n","overwrite":true}`},
			after: map[string]string{"scaffold/x.txt": "new\n"}},
		{name: "content is required", ops: []string{`{"type":"create","path":"x.txt"}`},
			err: codeInvalid, msg: []string{"content"}},
		{name: "path is required", ops: []string{`{"type":"create","content":"x"}`},
			err: codeInvalid, msg: []string{"path"}},
		{name: "a directory is not a file", files: map[string]string{"d": isDirSetup},
			ops: []string{`{"type":"create","path":"d","content":"x","overwrite":true}`},
			err: codeConflict, msg: []string{"d", "directory"}},
		{name: "parent is a file", files: map[string]string{"f": "x\n"},
			ops: []string{`{"type":"create","path":"f/g.txt","content":"x"}`},
			err: codeConflict, msg: []string{"f/g.txt", "f"}},
	})
}

func TestEditRewriteRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "existing file is destructive and names replace", files: map[string]string{"r.txt": "a\nb\n"},
			ops:         []string{`{"type":"rewrite","path":"r.txt","content":"c\n"}`},
			destructive: true, reasons: []string{"rewrite", "r.txt", "replace"}, after: map[string]string{"r.txt": "c\n"}},
		{name: "missing without create_if_missing", ops: []string{`{"type":"rewrite","path":"r.txt","content":"c\n"}`},
			err: codeNotFound, msg: []string{"r.txt", "create_if_missing"}},
		{name: "missing with create_if_missing is created, not destructive",
			ops:   []string{`{"type":"rewrite","path":"sub/r.txt","content":"c\n","create_if_missing":true}`},
			after: map[string]string{"sub/r.txt": "c\n"}},
		{name: "content is required", files: map[string]string{"r.txt": "a\n"},
			ops: []string{`{"type":"rewrite","path":"r.txt"}`}, err: codeInvalid, msg: []string{"content"}},
	})
}

func TestEditReplaceRules(t *testing.T) {
	three := map[string]string{"f.txt": "x = 1\ny = 1\nz = 1\n"}
	runRules(t, []ruleCase{
		{name: "exact match replaced", files: map[string]string{"f.txt": "alpha beta gamma\n"},
			ops:   []string{`{"type":"replace","path":"f.txt","search":"beta","replacement":"BETA"}`},
			after: map[string]string{"f.txt": "alpha BETA gamma\n"}},
		{name: "empty replacement deletes the text", files: map[string]string{"f.txt": "alpha beta\n"},
			ops:   []string{`{"type":"replace","path":"f.txt","search":" beta","replacement":""}`},
			after: map[string]string{"f.txt": "alpha\n"}},
		{name: "multi-line search", files: map[string]string{"f.txt": "a\nb\nc\n"},
			ops:   []string{`{"type":"replace","path":"f.txt","search":"a\nb\n","replacement":"ab\n"}`},
			after: map[string]string{"f.txt": "ab\nc\n"}},
		{name: "zero matches", files: map[string]string{"f.txt": "alpha\n"},
			ops: []string{`{"type":"replace","path":"f.txt","search":"omega","replacement":"x"}`},
			err: codeConflict, msg: []string{"not found", "f.txt"}},
		{name: "n matches with expected_matches default 1", files: three,
			ops: []string{`{"type":"replace","path":"f.txt","search":"= 1","replacement":"= 2"}`},
			err: codeConflict, msg: []string{"3 times", "f.txt", "expected 1"}},
		{name: "n matches with a wrong expected_matches", files: three,
			ops: []string{`{"type":"replace","path":"f.txt","search":"= 1","replacement":"= 2","expected_matches":2}`},
			err: codeConflict, msg: []string{"3 times", "expected 2"}},
		{name: "expected_matches n replaces all", files: three,
			ops:   []string{`{"type":"replace","path":"f.txt","search":"= 1","replacement":"= 2","expected_matches":3}`},
			after: map[string]string{"f.txt": "x = 2\ny = 2\nz = 2\n"}},
		{name: "empty search", files: map[string]string{"f.txt": "a\n"},
			ops: []string{`{"type":"replace","path":"f.txt","search":"","replacement":"x"}`},
			err: codeInvalid, msg: []string{"search"}},
		{name: "missing replacement", files: map[string]string{"f.txt": "a\n"},
			ops: []string{`{"type":"replace","path":"f.txt","search":"a"}`},
			err: codeInvalid, msg: []string{"replacement"}},
		{name: "expected_matches 0", files: map[string]string{"f.txt": "a\n"},
			ops: []string{`{"type":"replace","path":"f.txt","search":"a","replacement":"b","expected_matches":0}`},
			err: codeInvalid, msg: []string{"expected_matches"}},
		{name: "missing file", ops: []string{`{"type":"replace","path":"nope.txt","search":"a","replacement":"b"}`},
			err: codeNotFound, msg: []string{"nope.txt"}},
	})
}

func TestEditSpliceRules(t *testing.T) {
	abc := map[string]string{"f.txt": "a\nb\nc\n"}
	runRules(t, []ruleCase{
		{name: "insert before a line", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":2,"delete_count":0,"content":"x\n"}`},
			after: map[string]string{"f.txt": "a\nx\nb\nc\n"}},
		{name: "insert without a trailing newline ends its line", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":2,"content":"x"}`},
			after: map[string]string{"f.txt": "a\nx\nb\nc\n"}},
		{name: "append at lines+1", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":4,"content":"d\n"}`},
			after: map[string]string{"f.txt": "a\nb\nc\nd\n"}},
		{name: "delete lines", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":1,"delete_count":2}`},
			after: map[string]string{"f.txt": "c\n"}},
		{name: "replace lines", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":2,"delete_count":2,"content":"y\nz\nw\n"}`},
			after: map[string]string{"f.txt": "a\ny\nz\nw\n"}},
		{name: "into an empty file", files: map[string]string{"f.txt": ""},
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":1,"content":"x\n"}`},
			after: map[string]string{"f.txt": "x\n"}},
		{name: "start_line 0", files: abc,
			ops: []string{`{"type":"splice","path":"f.txt","start_line":0,"content":"x\n"}`},
			err: codeInvalid, msg: []string{"start_line 0", "3 lines"}},
		{name: "start_line missing", files: abc,
			ops: []string{`{"type":"splice","path":"f.txt","content":"x\n"}`},
			err: codeInvalid, msg: []string{"start_line"}},
		{name: "start_line past lines+1", files: abc,
			ops: []string{`{"type":"splice","path":"f.txt","start_line":5,"content":"x\n"}`},
			err: codeInvalid, msg: []string{"start_line 5", "1 to 4"}},
		{name: "delete_count past the end", files: abc,
			ops: []string{`{"type":"splice","path":"f.txt","start_line":2,"delete_count":3}`},
			err: codeInvalid, msg: []string{"delete_count 3", "past the end"}},
		{name: "negative delete_count", files: abc,
			ops: []string{`{"type":"splice","path":"f.txt","start_line":2,"delete_count":-1}`},
			err: codeInvalid, msg: []string{"delete_count"}},
		{name: "missing file", ops: []string{`{"type":"splice","path":"n.txt","start_line":1,"content":"x"}`},
			err: codeNotFound, msg: []string{"n.txt"}},
		{name: "CRLF file keeps CRLF on insert", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			ops:   []string{`{"type":"splice","path":"w.txt","start_line":2,"content":"x\ny\n"}`},
			after: map[string]string{"w.txt": "a\r\nx\r\ny\r\nb\r\nc\r\n"}},
		{name: "CRLF file keeps CRLF on replace without final newline", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			ops:   []string{`{"type":"splice","path":"w.txt","start_line":2,"delete_count":1,"content":"x\ny"}`},
			after: map[string]string{"w.txt": "a\r\nx\r\ny\r\nc\r\n"}},
		{name: "CRLF content into a CRLF file is kept as is", files: map[string]string{"w.txt": "a\r\nb\r\n"},
			ops:   []string{`{"type":"splice","path":"w.txt","start_line":3,"content":"c\r\n"}`},
			after: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"}},
		{name: "LF file stays LF", files: abc,
			ops:   []string{`{"type":"splice","path":"f.txt","start_line":3,"delete_count":1,"content":"x\ny"}`},
			after: map[string]string{"f.txt": "a\nb\nx\ny"}},
		{name: "no trailing newline: append after the last line", files: map[string]string{"n.txt": "a\nb"},
			ops:   []string{`{"type":"splice","path":"n.txt","start_line":3,"content":"c"}`},
			after: map[string]string{"n.txt": "a\nb\nc"}},
		{name: "no trailing newline: replace the last line", files: map[string]string{"n.txt": "a\nb"},
			ops:   []string{`{"type":"splice","path":"n.txt","start_line":2,"delete_count":1,"content":"z"}`},
			after: map[string]string{"n.txt": "a\nz"}},
		{name: "no trailing newline: insert before the last line", files: map[string]string{"n.txt": "a\nb"},
			ops:   []string{`{"type":"splice","path":"n.txt","start_line":2,"content":"x"}`},
			after: map[string]string{"n.txt": "a\nx\nb"}},
		{name: "no trailing newline: delete_count counts the last line", files: map[string]string{"n.txt": "a\nb"},
			ops: []string{`{"type":"splice","path":"n.txt","start_line":2,"delete_count":2}`},
			err: codeInvalid, msg: []string{"delete_count 2"}},
	})
}

func TestEditCopyMoveDeleteRules(t *testing.T) {
	src := map[string]string{"s.txt": "source\n"}
	both := map[string]string{"s.txt": "source\n", "d.txt": "dest\n"}
	runRules(t, []ruleCase{
		{name: "copy keeps the source", files: src,
			ops:   []string{`{"type":"copy","from":"s.txt","to":"c/d.txt"}`},
			after: map[string]string{"s.txt": "source\n", "c/d.txt": "source\n"}},
		{name: "copy onto an existing target without overwrite", files: both,
			ops: []string{`{"type":"copy","from":"s.txt","to":"d.txt"}`},
			err: codeConflict, msg: []string{"d.txt", "already exists"}},
		{name: "copy with overwrite over an existing target is destructive", files: both,
			ops:         []string{`{"type":"copy","from":"s.txt","to":"d.txt","overwrite":true}`},
			destructive: true, reasons: []string{"copy", "d.txt"}, after: map[string]string{"s.txt": "source\n", "d.txt": "source\n"}},
		{name: "copy with overwrite onto a missing target is not destructive", files: src,
			ops:   []string{`{"type":"copy","from":"s.txt","to":"d.txt","overwrite":true}`},
			after: map[string]string{"s.txt": "source\n", "d.txt": "source\n"}},
		{name: "copy of a missing source", ops: []string{`{"type":"copy","from":"s.txt","to":"d.txt"}`},
			err: codeNotFound, msg: []string{"s.txt"}},
		{name: "copy onto itself", files: src, ops: []string{`{"type":"copy","from":"s.txt","to":"./s.txt","overwrite":true}`},
			err: codeInvalid, msg: []string{"same"}},
		{name: "copy of a directory", files: map[string]string{"dd": isDirSetup},
			ops: []string{`{"type":"copy","from":"dd","to":"e"}`}, err: codeInvalid, msg: []string{"dd", "directory"}},
		{name: "move is always destructive and removes the source", files: src,
			ops:         []string{`{"type":"move","from":"s.txt","to":"m/d.txt"}`},
			destructive: true, reasons: []string{"move", "s.txt", "m/d.txt", "copy keeps it"},
			after: map[string]string{"s.txt": absent, "m/d.txt": "source\n"}},
		{name: "move onto an existing target without overwrite", files: both,
			ops: []string{`{"type":"move","from":"s.txt","to":"d.txt"}`},
			err: codeConflict, msg: []string{"d.txt"}},
		{name: "move with overwrite over an existing target", files: both,
			ops:         []string{`{"type":"move","from":"s.txt","to":"d.txt","overwrite":true}`},
			destructive: true, reasons: []string{"move", "d.txt"}, after: map[string]string{"s.txt": absent, "d.txt": "source\n"}},
		{name: "move of a missing source", ops: []string{`{"type":"move","from":"s.txt","to":"d.txt"}`},
			err: codeNotFound, msg: []string{"s.txt"}},
		{name: "delete of an existing file is destructive", files: src,
			ops:         []string{`{"type":"delete","path":"s.txt"}`},
			destructive: true, reasons: []string{"delete", "s.txt"}, after: map[string]string{"s.txt": absent}},
		{name: "delete of a missing file", ops: []string{`{"type":"delete","path":"gone.txt"}`},
			err: codeNotFound, msg: []string{"gone.txt", "ignore_missing"}},
		{name: "delete of a missing file with ignore_missing", files: src,
			ops:   []string{`{"type":"delete","path":"gone.txt","ignore_missing":true}`, `{"type":"create","path":"n.txt","content":"n\n"}`},
			after: map[string]string{"gone.txt": absent, "n.txt": "n\n", "s.txt": "source\n"}},
		{name: "delete of a file the transaction created is not destructive",
			ops:   []string{`{"type":"create","path":"t.txt","content":"t\n"}`, `{"type":"delete","path":"t.txt"}`, `{"type":"create","path":"u.txt","content":"u\n"}`},
			after: map[string]string{"t.txt": absent, "u.txt": "u\n"}},
	})
}

func TestEditMkdirRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "mkdir is never destructive", ops: []string{`{"type":"mkdir","path":".github/workflows"}`},
			after: map[string]string{".github/workflows": isDir}},
		{name: "mkdir beside a destructive op does not change why it is destructive", files: map[string]string{"x.txt": "x\n"},
			ops:         []string{`{"type":"mkdir","path":"d"}`, `{"type":"delete","path":"x.txt"}`},
			destructive: true, reasons: []string{"delete"}, after: map[string]string{"d": isDir, "x.txt": absent}},
		{name: "target exists as a file", files: map[string]string{"f": "x\n"},
			ops: []string{`{"type":"mkdir","path":"f"}`}, err: codeConflict, msg: []string{"f", "file"}},
		{name: "an ancestor exists as a file", files: map[string]string{"f": "x\n"},
			ops: []string{`{"type":"mkdir","path":"f/g/h"}`}, err: codeConflict, msg: []string{"f/g/h", "f"}},
		{name: "create then mkdir of the same path",
			ops: []string{`{"type":"create","path":"p","content":"x"}`, `{"type":"mkdir","path":"p"}`},
			err: codeConflict, msg: []string{"p", "operation 1"}},
		{name: "mkdir then create of the same path",
			ops: []string{`{"type":"mkdir","path":"p"}`, `{"type":"create","path":"p","content":"x"}`},
			err: codeConflict, msg: []string{"p", "operation 1"}},
		{name: "create of a file then mkdir below it",
			ops: []string{`{"type":"create","path":"p","content":"x"}`, `{"type":"mkdir","path":"p/q"}`},
			err: codeConflict, msg: []string{"p/q", "operation 1"}},
		{name: "mkdir below a path then create it as a file",
			ops: []string{`{"type":"mkdir","path":"p/q"}`, `{"type":"create","path":"p","content":"x"}`},
			err: codeConflict, msg: []string{"p", "operation 1"}},
		{name: "copy onto a path then mkdir it", files: map[string]string{"s": "s\n"},
			ops: []string{`{"type":"copy","from":"s","to":"t"}`, `{"type":"mkdir","path":"t"}`},
			err: codeConflict, msg: []string{"t"}},
		{name: "mkdir then move onto that path", files: map[string]string{"s": "s\n"},
			ops: []string{`{"type":"mkdir","path":"t"}`, `{"type":"move","from":"s","to":"t"}`},
			err: codeConflict, msg: []string{"t"}},
		{name: "every requested directory already exists", files: map[string]string{"a/b": isDirSetup, "c": isDirSetup},
			ops: []string{`{"type":"mkdir","path":"a/b"}`, `{"type":"mkdir","path":"c"}`},
			err: codeInvalid, msg: []string{"a/b", "c", "already exists"}},
		{name: "an existing directory beside a new one", files: map[string]string{"a": isDirSetup},
			ops:   []string{`{"type":"mkdir","path":"a"}`, `{"type":"mkdir","path":"b"}`},
			after: map[string]string{"a": isDir, "b": isDir}},
		{name: "an existing directory beside a file change", files: map[string]string{"a": isDirSetup},
			ops:   []string{`{"type":"mkdir","path":"a"}`, `{"type":"create","path":"a/f","content":"f\n"}`},
			after: map[string]string{"a/f": "f\n"}},
		{name: "mkdir and a create below it", ops: []string{`{"type":"mkdir","path":"m"}`, `{"type":"create","path":"m/n/f","content":"f\n"}`},
			after: map[string]string{"m/n/f": "f\n"}},
		{name: "path is required", ops: []string{`{"type":"mkdir"}`}, err: codeInvalid, msg: []string{"path"}},
	})
}

// Operations apply in order, each against the result of the previous ones.
func TestEditOpsApplyInOrder(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "create then replace in the same file",
			ops:   []string{`{"type":"create","path":"o.txt","content":"one two\n"}`, `{"type":"replace","path":"o.txt","search":"two","replacement":"2"}`},
			after: map[string]string{"o.txt": "one 2\n"}},
		{name: "replace sees the previous replace", files: map[string]string{"o.txt": "a\n"},
			ops:   []string{`{"type":"replace","path":"o.txt","search":"a","replacement":"b"}`, `{"type":"replace","path":"o.txt","search":"b","replacement":"c"}`},
			after: map[string]string{"o.txt": "c\n"}},
		{name: "splice counts lines after an earlier splice", files: map[string]string{"o.txt": "1\n2\n"},
			ops:   []string{`{"type":"splice","path":"o.txt","start_line":1,"content":"0\n"}`, `{"type":"splice","path":"o.txt","start_line":4,"content":"3\n"}`},
			after: map[string]string{"o.txt": "0\n1\n2\n3\n"}},
		{name: "create, copy and edit the copy",
			ops:   []string{`{"type":"create","path":"a.txt","content":"x\n"}`, `{"type":"copy","from":"a.txt","to":"b.txt"}`, `{"type":"replace","path":"b.txt","search":"x","replacement":"y"}`},
			after: map[string]string{"a.txt": "x\n", "b.txt": "y\n"}},
		{name: "a replace of text an earlier op removed fails", files: map[string]string{"o.txt": "a\n"},
			ops: []string{`{"type":"replace","path":"o.txt","search":"a","replacement":"b"}`, `{"type":"replace","path":"o.txt","search":"a","replacement":"c"}`},
			err: codeConflict, msg: []string{"operation 2"}},
		{name: "a later failure leaves the earlier ops unwritten",
			ops: []string{`{"type":"create","path":"ok.txt","content":"x\n"}`, `{"type":"delete","path":"missing.txt"}`},
			err: codeNotFound, msg: []string{"operation 2", "missing.txt"}},
	})
}

// The gutter check: text still carrying a read's line numbers is refused.
func TestEditGutterRules(t *testing.T) {
	w := newEWS(t, cfgAuto)
	w.write("src.txt", "alpha\nbeta\ngamma\n")
	read := w.aw("inspect", "read", "src.txt")
	wantOK(t, read, exitOK)
	gutter := str(t, read, ".data.content") // "     1\talpha\n     2\tbeta\n..."
	if !strings.HasPrefix(gutter, "     1\talpha\n") {
		t.Fatalf("inspect read's gutter changed: %q", gutter)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	file := map[string]string{"f.txt": "alpha\nbeta\ngamma\n"}
	seed := "12 | foo\n13 | bar\n14 | baz\n"
	cases := []ruleCase{
		{name: "create content with aw's read gutter", ops: []string{`{"type":"create","path":"n.txt","content":` + q(gutter) + `}`},
			err: codeInvalid, msg: []string{"content", "gutter", "allow_line_numbers"}},
		{name: "create content with the seed's gutter", ops: []string{`{"type":"create","path":"n.txt","content":` + q(seed) + `}`},
			err: codeInvalid, msg: []string{"content", "gutter"}},
		{name: "replacement with a gutter", files: file,
			ops: []string{`{"type":"replace","path":"f.txt","search":"beta","replacement":` + q("1 | x\n2 | y") + `}`},
			err: codeInvalid, msg: []string{"replacement"}},
		{name: "search with a gutter", files: file,
			ops: []string{`{"type":"replace","path":"f.txt","search":` + q("     2\tbeta\n     3\tgamma") + `,"replacement":"x"}`},
			err: codeInvalid, msg: []string{"search"}},
		{name: "rewrite content with a gutter", files: file,
			ops: []string{`{"type":"rewrite","path":"f.txt","content":` + q(gutter) + `}`},
			err: codeInvalid, msg: []string{"content"}},
		{name: "splice content with a gutter", files: file,
			ops: []string{`{"type":"splice","path":"f.txt","start_line":1,"content":` + q("  7 | a\n  8 | b\n") + `}`},
			err: codeInvalid, msg: []string{"content"}},
		{name: "read gutter of a file with a blank line", ops: []string{`{"type":"create","path":"n.txt","content":` + q("     1\ta\n     2\t\n     3\tb\n") + `}`},
			err: codeInvalid},
		{name: "seed gutter of a file with a blank line", ops: []string{`{"type":"create","path":"n.txt","content":` + q("1 | a\n2 |\n3 | b\n") + `}`},
			err: codeInvalid},
		{name: "gutter on a majority, the rest free text", ops: []string{`{"type":"create","path":"n.txt","content":` + q("4 | a\n5 | b\nfree text\n") + `}`},
			err: codeInvalid},
		{name: "leading-pipe markdown table", ops: []string{`{"type":"create","path":"t.md","content":` + q("| a | b |\n|---|---|\n| 1 | 2 |\n| 2 | 3 |\n") + `}`},
			after: map[string]string{"t.md": "| a | b |\n|---|---|\n| 1 | 2 |\n| 2 | 3 |\n"}},
		{name: "descending numbers", ops: []string{`{"type":"create","path":"d.txt","content":` + q("3 | c\n2 | b\n1 | a\n") + `}`},
			after: map[string]string{"d.txt": "3 | c\n2 | b\n1 | a\n"}},
		{name: "sparse numbers", ops: []string{`{"type":"create","path":"s.txt","content":` + q("1 | a\n5 | b\n9 | c\n") + `}`},
			after: map[string]string{"s.txt": "1 | a\n5 | b\n9 | c\n"}},
		{name: "stepped numbers", ops: []string{`{"type":"create","path":"s.txt","content":` + q("10 | a\n20 | b\n30 | c\n") + `}`},
			after: map[string]string{"s.txt": "10 | a\n20 | b\n30 | c\n"}},
		{name: "a single numbered line", ops: []string{`{"type":"create","path":"o.txt","content":` + q("     1\tonly\n") + `}`},
			after: map[string]string{"o.txt": "     1\tonly\n"}},
		{name: "a minority of numbered lines", ops: []string{`{"type":"create","path":"m.txt","content":` + q("1 | a\n2 | b\nx\ny\nz\n") + `}`},
			after: map[string]string{"m.txt": "1 | a\n2 | b\nx\ny\nz\n"}},
		{name: "allow_line_numbers escapes", ops: []string{`{"type":"create","path":"y.txt","content":` + q(seed) + `,"allow_line_numbers":true}`},
			after: map[string]string{"y.txt": seed}},
		{name: "allow_line_numbers escapes aw's gutter too", ops: []string{`{"type":"create","path":"y.txt","content":` + q(gutter) + `,"allow_line_numbers":true}`},
			after: map[string]string{"y.txt": gutter}},
		{name: "zero-match replace whose search carries a gutter that stripping would match", files: map[string]string{"f.txt": "alpha\nbeta\nbeta\n"},
			ops: []string{`{"type":"replace","path":"f.txt","search":` + q("     2\tbeta") + `,"replacement":"x"}`},
			err: codeConflict, msg: []string{"If this text was copied from a read result", "would match 2 time"}},
		{name: "zero-match replace in the seed's form", files: file,
			ops: []string{`{"type":"replace","path":"f.txt","search":"2 | beta","replacement":"x"}`},
			err: codeConflict, msg: []string{"If this text was copied from a read result", "would match 1 time"}},
		{name: "zero-match replace whose stripped search would not match either", files: file,
			ops: []string{`{"type":"replace","path":"f.txt","search":"2 | delta","replacement":"x"}`},
			err: codeConflict, msg: []string{"gutter", "would not match"}},
	}
	runRules(t, cases)
	t.Run("no gutter hint without a gutter", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.setup(file)
		m := wantErr(t, w.edit("preview", `{"type":"replace","path":"f.txt","search":"delta","replacement":"x"}`), codeConflict, exitFailed)
		if strings.Contains(m, "gutter") {
			t.Errorf("a plain zero-match mentions a gutter: %s", m)
		}
	})
}

// expect_sha256 guards an op with the hash a read returned.
func TestEditExpectSHA256(t *testing.T) {
	w := newEWS(t, cfgAuto)
	w.write("h.txt", "one\ntwo\n")
	read := w.aw("inspect", "read", "h.txt")
	sum := str(t, read, ".data.sha256")
	wantOK(t, w.edit("apply", `{"type":"replace","path":"h.txt","search":"one","replacement":"1","expect_sha256":"`+sum+`"}`), exitOK)
	w.check(map[string]string{"h.txt": "1\ntwo\n"})
	// The hash read before that edit is stale now.
	before := w.snapshot()
	m := wantErr(t, w.edit("apply", `{"type":"replace","path":"h.txt","search":"two","replacement":"2","expect_sha256":"`+sum+`"}`), codeConflict, exitFailed, "stale", "h.txt")
	if !strings.Contains(m, sum) {
		t.Errorf("the stale message does not name the expected hash: %s", m)
	}
	w.sameAs(before, "a stale edit")
	// Uppercase hex matches too; copy and delete check it on their path.
	up := strings.ToUpper(str(t, w.aw("inspect", "read", "h.txt"), ".data.sha256"))
	wantOK(t, w.edit("preview", `{"type":"copy","from":"h.txt","to":"c.txt","expect_sha256":"`+up+`"}`), exitOK)
	wantErr(t, w.edit("preview", `{"type":"delete","path":"h.txt","expect_sha256":"`+sum+`"}`), codeConflict, exitFailed, "stale")
}

// A destructive transaction is refused PROTECTED_PATH in every mode, before
// any approval is considered; its preview never is.
func TestEditDestructiveRefusal(t *testing.T) {
	ops := []string{
		`{"type":"rewrite","path":"a.txt","content":"A\n"}`,
		`{"type":"delete","path":"b.txt"}`,
		`{"type":"move","from":"c.txt","to":"d.txt"}`,
		`{"type":"create","path":"e.txt","content":"E\n","overwrite":true}`,
		`{"type":"copy","from":"a.txt","to":"f.txt","overwrite":true}`,
	}
	names := []string{"rewrite", "a.txt", "replace", "delete", "b.txt", "move", "c.txt", "d.txt", "e.txt", "copy", "f.txt", "allowDestructiveEdits"}
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "e.txt": "e\n", "f.txt": "f\n"}
	for _, mode := range []struct{ name, cfg string }{{"Auto", cfgAutoSafe}, {"Plan", cfgPlanSafe}, {"Manual", cfgManualSafe}} {
		for _, action := range []string{"apply", "commit"} {
			t.Run(mode.name+"/"+action, func(t *testing.T) {
				t.Parallel()
				w := newEWS(t, mode.cfg)
				w.setup(files)
				before := w.snapshot()
				pre := w.edit("preview", ops...)
				wantOK(t, pre, exitOK)
				if !boolean(t, pre, ".data.destructive") {
					t.Fatalf("preview not destructive: %s", pre.Stdout)
				}
				if n := len(list(t, pre, ".data.destructiveReasons")); n != len(ops) {
					t.Errorf("%d destructiveReasons, want %d: %s", n, len(ops), pre.Stdout)
				}
				var r Result
				if action == "apply" {
					r = w.edit("apply", ops...)
				} else {
					r = w.aw("edit", "commit", str(t, pre, ".data.transactionId"))
				}
				wantErr(t, r, codeProtected, exitFailed, names...)
				w.sameAs(before, "a refused destructive "+action)
				if n := w.approvals(); n != 0 {
					t.Errorf("a refused destructive %s staged %d approval record(s)", action, n)
				}
				show := w.aw("edit", "show", str(t, pre, ".data.transactionId"))
				if s := str(t, show, ".data.status"); s != "planned" {
					t.Errorf("the refused transaction is %s, want planned", s)
				}
			})
		}
	}
	// A non-destructive transaction is not refused in the same settings.
	w := newEWS(t, cfgAutoSafe)
	w.setup(files)
	wantOK(t, w.edit("apply", `{"type":"replace","path":"a.txt","search":"a","replacement":"z"}`, `{"type":"create","path":"g.txt","content":"g"}`), exitOK)
}

// Permission modes: Auto runs, Plan needs an approved plan, Manual stages.
func TestEditModes(t *testing.T) {
	op := `{"type":"create","path":"m.txt","content":"m\n"}`
	t.Run("Auto runs", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgAutoSafe)
		wantOK(t, w.edit("apply", op), exitOK)
		w.check(map[string]string{"m.txt": "m\n"})
	})
	t.Run("Plan without an approved plan", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgPlan)
		before := w.snapshot()
		wantErr(t, w.edit("apply", op), codeApprovalRq, exitFailed, "plan")
		pre := w.edit("preview", op)
		wantOK(t, pre, exitOK) // preview is never gated
		wantErr(t, w.aw("edit", "commit", str(t, pre, ".data.transactionId")), codeApprovalRq, exitFailed)
		w.sameAs(before, "Plan mode without a plan")
	})
	t.Run("Manual stages", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("keep.txt", "k\n")
		before := w.snapshot()
		r := w.edit("apply", op)
		wantOK(t, r, exitPending)
		tx := str(t, r, ".data.transactionId")
		id := str(t, r, ".data.approval.id")
		title := "Commit " + tx + ": create m.txt (+1)"
		for path, want := range map[string]any{
			".data.status":                                   "pending_approval",
			".data.mode":                                     "manual",
			".data.transactionStatus":                        "planned",
			".data.committed":                                false,
			".data.approval.kind":                            "transaction",
			".data.approval.title":                           title,
			".data.approval.destructive":                     false,
			".data.approval.resume.tool":                     "workspace_edit",
			".data.approval.resume.arguments.action":         "commit",
			".data.approval.resume.arguments.transaction_id": tx,
		} {
			if got := r.field(t, path); got != want {
				t.Errorf("%s is %v, want %v", path, got, want)
			}
		}
		if !strings.HasPrefix(id, "approval_") || !strings.HasPrefix(tx, "tx_") {
			t.Errorf("ids %s %s", id, tx)
		}
		sum := str(t, r, ".summary")
		for _, s := range []string{id, `{"action":"commit","transaction_id":"` + tx + `"}`, "workspace_edit"} {
			if !strings.Contains(sum, s) {
				t.Errorf("summary %q does not name %s", sum, s)
			}
		}
		hasFact(t, r, "approval "+id+" pending: "+title)
		hasFact(t, r, "permission mode Manual (0)")
		if len(r.Env["artifacts"].([]any)) != 2 {
			t.Errorf("a staged apply carries %v artifacts, want the diff and the review", r.Env["artifacts"])
		}
		// Re-issuing the same apply while pending returns the same approval.
		again := w.edit("apply", strings.Replace(op, `"m.txt"`, `"./m.txt"`, 1)) // named another way
		wantOK(t, again, exitPending)
		if got := str(t, again, ".data.approval.id"); got != id {
			t.Errorf("re-issued apply staged %s, want the pending %s", got, id)
		}
		if got := str(t, again, ".data.transactionId"); got != tx {
			t.Errorf("re-issued apply names %s, want %s", got, tx)
		}
		// So does the resume call itself while still pending.
		c := w.aw("edit", "commit", tx)
		wantOK(t, c, exitPending)
		if got := str(t, c, ".data.approval.id"); got != id {
			t.Errorf("commit while pending staged %s, want %s", got, id)
		}
		if n := w.approvals(); n != 1 {
			t.Errorf("%d approval records, want 1", n)
		}
		if s := str(t, w.aw("edit", "show", tx), ".data.status"); s != "planned" {
			t.Errorf("the staged transaction is %s, want planned", s)
		}
		if n := len(list(t, w.aw("edit", "list"), ".data.transactions")); n != 1 {
			t.Errorf("%d transactions after re-issuing, want 1 (duplicates dropped)", n)
		}
		w.sameAs(before, "a staged apply")
	})
	t.Run("Manual stages a destructive edit as destructive", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("d.txt", "d\n")
		before := w.snapshot()
		r := w.edit("apply", `{"type":"delete","path":"d.txt"}`)
		wantOK(t, r, exitPending)
		if !boolean(t, r, ".data.approval.destructive") || !boolean(t, r, ".data.destructive") {
			t.Errorf("a destructive staged apply is not marked destructive: %s", r.Stdout)
		}
		w.sameAs(before, "a staged destructive apply")
	})
	t.Run("Manual stages a rollback", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgAuto)
		tx := str(t, w.edit("apply", op), ".data.transactionId")
		w.config(cfgManual)
		before := w.snapshot()
		r := w.aw("edit", "rollback", tx)
		wantOK(t, r, exitPending)
		if got := str(t, r, ".data.approval.title"); got != "Roll back "+tx+": delete m.txt" {
			t.Errorf("title %s", got)
		}
		if got := r.field(t, ".data.approval.resume.arguments.action"); got != "rollback" {
			t.Errorf("resume action %v", got)
		}
		w.sameAs(before, "a staged rollback")
	})
}

// No-ops (commit of an applied transaction, rollback of a rolled-back one)
// never stage, in any mode.
func TestEditNoOpsNeverStage(t *testing.T) {
	for _, cfg := range []struct{ name, cfg string }{{"Manual", cfgManualSafe}, {"Plan", cfgPlanSafe}, {"Auto", cfgAutoSafe}} {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			w := newEWS(t, cfgAuto)
			applied := str(t, w.edit("apply", `{"type":"create","path":"a.txt","content":"a\n"}`), ".data.transactionId")
			back := str(t, w.edit("apply", `{"type":"create","path":"b.txt","content":"b\n"}`), ".data.transactionId")
			wantOK(t, w.aw("edit", "rollback", back), exitOK)
			w.config(cfg.cfg)
			before, records := w.snapshot(), w.approvals()
			for _, args := range [][]string{{"edit", "commit", applied}, {"edit", "rollback", back}} {
				r := w.aw(args...)
				wantOK(t, r, exitOK)
				if !boolean(t, r, ".data.noOp") {
					t.Errorf("%v: noOp not set: %s", args, r.Stdout)
				}
				if _, err := lookup(r.Env, ".data.approval"); err == nil {
					t.Errorf("%v: a no-op carries an approval: %s", args, r.Stdout)
				}
				if s := str(t, r, ".summary"); !strings.Contains(s, "no-op") {
					t.Errorf("%v: summary %q does not say no-op", args, s)
				}
			}
			if n := w.approvals(); n != records {
				t.Errorf("no-ops added %d approval records", n-records)
			}
			w.sameAs(before, "no-ops")
		})
	}
}

func TestEditRollback(t *testing.T) {
	t.Run("restores the before content", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.setup(map[string]string{"m.txt": "old\n", "d.txt": "gone\n", "s.txt": "moved\n"})
		before := w.snapshot()
		r := w.edit("apply",
			`{"type":"replace","path":"m.txt","search":"old","replacement":"new"}`,
			`{"type":"delete","path":"d.txt"}`,
			`{"type":"move","from":"s.txt","to":"t/moved.txt"}`,
			`{"type":"create","path":"c/new.txt","content":"n\n"}`)
		wantOK(t, r, exitOK)
		tx := str(t, r, ".data.transactionId")
		w.check(map[string]string{"m.txt": "new\n", "d.txt": absent, "s.txt": absent, "t/moved.txt": "moved\n", "c/new.txt": "n\n"})
		rb := w.aw("edit", "rollback", tx)
		wantOK(t, rb, exitOK)
		if s := str(t, rb, ".data.status"); s != "rolled_back" {
			t.Errorf("status %s", s)
		}
		w.check(map[string]string{"m.txt": "old\n", "d.txt": "gone\n", "s.txt": "moved\n", "t/moved.txt": absent, "c/new.txt": absent})
		// Directories the creates made implicitly stay (as create behaves).
		delete(before, "t")
		after := w.snapshot()
		delete(after, "t")
		delete(after, "c")
		if !reflect.DeepEqual(before, after) {
			t.Errorf("rollback did not restore the workspace:\n%v\n%v", before, after)
		}
	})
	t.Run("a file changed since the commit", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.setup(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
		tx := str(t, w.edit("apply", `{"type":"replace","path":"a.txt","search":"a","replacement":"A"}`, `{"type":"replace","path":"b.txt","search":"b","replacement":"B"}`), ".data.transactionId")
		w.write("b.txt", "user edit\n")
		before := w.snapshot()
		m := wantErr(t, w.aw("edit", "rollback", tx), codeConflict, exitFailed, "b.txt", "force")
		if strings.Contains(m, "a.txt") {
			t.Errorf("the conflict names an unchanged file: %s", m)
		}
		w.sameAs(before, "a refused rollback")
		// --force is destructive: refused without allowDestructiveEdits.
		w.config(cfgAutoSafe)
		wantErr(t, w.aw("edit", "rollback", tx, "--force"), codeProtected, exitFailed, "allowDestructiveEdits")
		w.sameAs(before, "a refused forced rollback")
		w.config(cfgAuto)
		wantOK(t, w.aw("edit", "rollback", tx, "--force"), exitOK)
		w.check(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
		// And now it is a no-op.
		r := w.aw("edit", "rollback", tx)
		wantOK(t, r, exitOK)
		if !boolean(t, r, ".data.noOp") {
			t.Errorf("second rollback is not a no-op: %s", r.Stdout)
		}
	})
	t.Run("a deleted file came back", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.write("d.txt", "d\n")
		tx := str(t, w.edit("apply", `{"type":"delete","path":"d.txt"}`), ".data.transactionId")
		w.write("d.txt", "recreated\n")
		wantErr(t, w.aw("edit", "rollback", tx), codeConflict, exitFailed, "d.txt")
		w.check(map[string]string{"d.txt": "recreated\n"})
	})
	t.Run("a forced rollback is destructive even in Manual mode, before staging", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		tx := str(t, w.edit("apply", `{"type":"create","path":"n.txt","content":"n\n"}`), ".data.transactionId")
		w.config(cfgManualSafe)
		wantErr(t, w.aw("edit", "rollback", tx, "--force"), codeProtected, exitFailed, "allowDestructiveEdits")
		if n := w.approvals(); n != 0 {
			t.Errorf("%d approvals staged", n)
		}
	})
	t.Run("a planned transaction cannot be rolled back", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		tx := str(t, w.edit("preview", `{"type":"create","path":"n.txt","content":"n\n"}`), ".data.transactionId")
		wantErr(t, w.aw("edit", "rollback", tx), "TRANSACTION_STATE", exitFailed, tx)
	})
}

// mkdir rollback removes only still-empty directories the transaction
// created (parents made on the way included), and names the mkdir targets
// it left.
func TestEditRollbackMkdir(t *testing.T) {
	w := newEWS(t, cfgAuto)
	w.setup(map[string]string{"pre": isDirSetup})
	r := w.edit("apply",
		`{"type":"mkdir","path":"a/b/c"}`,
		`{"type":"mkdir","path":"full"}`,
		`{"type":"mkdir","path":"swapped"}`,
		`{"type":"mkdir","path":"pre"}`,
		`{"type":"mkdir","path":"empty"}`)
	wantOK(t, r, exitOK)
	tx := str(t, r, ".data.transactionId")
	dirs := list(t, r, ".data.directories")
	if len(dirs) != 5 {
		t.Fatalf("directories %v", dirs)
	}
	for _, d := range dirs {
		m := d.(map[string]any)
		if want := m["path"] == "pre"; m["existedBefore"] != want {
			t.Errorf("%v: existedBefore %v", m["path"], m["existedBefore"])
		}
	}
	w.check(map[string]string{"a/b/c": isDir, "full": isDir, "swapped": isDir, "empty": isDir})
	w.write("full/user.txt", "mine\n")
	if err := os.Remove(w.abs("swapped")); err != nil {
		t.Fatal(err)
	}
	w.write("swapped", "now a file\n")
	rb := w.aw("edit", "rollback", tx)
	wantOK(t, rb, exitOK)
	w.check(map[string]string{
		"a/b/c": absent, "a/b": absent, "a": absent, // parents made on the way go too
		"empty": absent, "pre": isDir,
		"full/user.txt": "mine\n", "swapped": "now a file\n",
	})
	left := list(t, rb, ".data.leftDirectories")
	if !reflect.DeepEqual(left, []any{"full", "swapped"}) && !reflect.DeepEqual(left, []any{"swapped", "full"}) {
		t.Errorf("leftDirectories %v, want full and swapped", left)
	}
	sum := str(t, rb, ".summary")
	for _, d := range []string{"full", "swapped"} {
		if !strings.Contains(sum, d) {
			t.Errorf("summary %q does not name %s", sum, d)
		}
	}
}

func TestEditIdempotencyKey(t *testing.T) {
	op := `{"type":"create","path":"k.txt","content":"k\n"}`
	t.Run("same key and operations: same transaction", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		a := str(t, w.aw("edit", "preview", "--idempotency-key", "k1", "--op", op), ".data.transactionId")
		b := str(t, w.aw("edit", "preview", "--idempotency-key", "k1", "--op", op), ".data.transactionId")
		if a != b {
			t.Errorf("same key, same ops: %s then %s", a, b)
		}
		// The same operations named another way normalize the same.
		c := w.aw("edit", "apply", "--idempotency-key", "k1", "--op", `{"type":"create","path":"./sub/../k.txt","content":"k\n"}`)
		wantOK(t, c, exitOK)
		if got := str(t, c, ".data.transactionId"); got != a {
			t.Errorf("apply with the key: %s, want %s", got, a)
		}
		w.check(map[string]string{"k.txt": "k\n"})
	})
	t.Run("a retried apply after it committed returns the same transaction", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.write("r.txt", "one\n")
		ops := []string{"--op", op, "--op", `{"type":"replace","path":"r.txt","search":"one","replacement":"two"}`}
		first := w.aw(append([]string{"edit", "apply", "--idempotency-key", "retry"}, ops...)...)
		wantOK(t, first, exitOK)
		again := w.aw(append([]string{"edit", "apply", "--idempotency-key", "retry"}, ops...)...)
		wantOK(t, again, exitOK)
		if a, b := str(t, first, ".data.transactionId"), str(t, again, ".data.transactionId"); a != b {
			t.Errorf("retry made %s, want %s", b, a)
		}
		if s := str(t, again, ".data.status"); s != "applied" {
			t.Errorf("retry status %s", s)
		}
		w.check(map[string]string{"k.txt": "k\n", "r.txt": "two\n"})
	})
	t.Run("same key with different operations", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		a := str(t, w.aw("edit", "preview", "--idempotency-key", "k2", "--op", op), ".data.transactionId")
		before := w.snapshot()
		wantErr(t, w.aw("edit", "apply", "--idempotency-key", "k2", "--op", `{"type":"create","path":"k.txt","content":"other\n"}`), codeConflict, exitFailed, "k2", a)
		w.sameAs(before, "a conflicting key")
	})
	t.Run("the key in --input", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		in := filepath.Join(t.TempDir(), "req.json")
		os.WriteFile(in, []byte(`{"idempotency_key":"k3","operations":[`+op+`]}`), 0o644)
		a := str(t, w.aw("edit", "preview", "--input", in), ".data.transactionId")
		b := str(t, w.aw("edit", "apply", "--input", in), ".data.transactionId")
		if a != b {
			t.Errorf("--input key: %s then %s", a, b)
		}
	})
}

// A commit checks the files still hold what the preview saw.
func TestEditStaleCommit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		op     string
		change func(w *ews)
	}{
		{"modified", `{"type":"replace","path":"f.txt","search":"a","replacement":"b"}`, func(w *ews) { w.write("f.txt", "a\nchanged\n") }},
		{"deleted", `{"type":"replace","path":"f.txt","search":"a","replacement":"b"}`, func(w *ews) { os.Remove(w.abs("f.txt")) }},
		{"created meanwhile", `{"type":"create","path":"new.txt","content":"n\n"}`, func(w *ews) { w.write("new.txt", "theirs\n") }},
		{"mkdir target became a file", `{"type":"mkdir","path":"dir"}`, func(w *ews) { w.write("dir", "file\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newEWS(t, cfgAuto)
			w.write("f.txt", "a\n")
			pre := w.edit("preview", tc.op, `{"type":"create","path":"other.txt","content":"o\n"}`)
			wantOK(t, pre, exitOK)
			tx := str(t, pre, ".data.transactionId")
			tc.change(w)
			before := w.snapshot()
			wantErr(t, w.aw("edit", "commit", tx), codeConflict, exitFailed, "stale", tx)
			w.sameAs(before, "a stale commit")
			if s := str(t, w.aw("edit", "show", tx), ".data.status"); s != "planned" {
				t.Errorf("stale transaction is %s", s)
			}
		})
	}
}

// Every path in an envelope is root-relative with forward slashes.
func TestEditPathsRootRelative(t *testing.T) {
	w := newEWS(t, cfgAuto)
	w.setup(map[string]string{"sub/x.txt": "x\n", "sub/y.txt": "y\n"})
	for _, form := range []string{w.abs("sub/x.txt"), "./sub/x.txt", "sub/../sub/x.txt", "sub//x.txt", "sub/./x.txt"} {
		t.Run(form, func(t *testing.T) {
			r := w.edit("preview", `{"type":"replace","path":"`+form+`","search":"x","replacement":"z"}`,
				`{"type":"copy","from":"`+strings.Replace(form, "x.txt", "y.txt", 1)+`","to":"`+strings.Replace(form, "x.txt", "c.txt", 1)+`"}`)
			wantOK(t, r, exitOK)
			for path, want := range map[string]string{
				".data.operations.0.path": "sub/x.txt", ".data.operations.1.from": "sub/y.txt", ".data.operations.1.to": "sub/c.txt",
				".data.files.0.path": "sub/x.txt", ".data.files.1.path": "sub/c.txt",
			} {
				if got := str(t, r, path); got != want {
					t.Errorf("%s is %q, want %q", path, got, want)
				}
			}
			if d := str(t, r, ".data.diffPreview"); !strings.Contains(d, "a/sub/x.txt") || strings.Contains(d, w.dir) {
				t.Errorf("diffPreview names paths oddly: %s", d)
			}
			m := wantErr(t, w.edit("preview", `{"type":"replace","path":"`+form+`","search":"nope","replacement":"z"}`), codeConflict, exitFailed, "sub/x.txt")
			if strings.Contains(m, w.dir) {
				t.Errorf("error message carries the absolute path: %s", m)
			}
			if got := r.field(t, ".artifacts.0.path"); !strings.HasPrefix(got.(string), ".agentic/transactions/tx_") {
				t.Errorf("artifact path %v", got)
			}
		})
	}
	r := w.edit("preview", `{"type":"mkdir","path":"`+w.abs("new/dir")+`"}`)
	wantOK(t, r, exitOK)
	if got := str(t, r, ".data.directories.0.path"); got != "new/dir" {
		t.Errorf("mkdir path %q", got)
	}
}

// The jail: nothing outside the root, nothing under .git or .agentic, and
// nothing through a symlink leaving it is ever written.
func TestEditJail(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	cases := []struct {
		name string
		op   string
		code string
	}{
		{"relative escape", `{"type":"create","path":"../evil.txt","content":"x"}`, codeEscape},
		{"absolute outside", `{"type":"create","path":"` + filepath.Join(outside, "evil.txt") + `","content":"x"}`, codeEscape},
		{"replace outside", `{"type":"replace","path":"` + filepath.Join(outside, "secret.txt") + `","search":"secret","replacement":"x"}`, codeEscape},
		{"delete outside", `{"type":"delete","path":"` + filepath.Join(outside, "secret.txt") + `"}`, codeEscape},
		{"copy outward", `{"type":"copy","from":"in.txt","to":"../copied.txt"}`, codeEscape},
		{"move outward", `{"type":"move","from":"in.txt","to":"` + filepath.Join(outside, "moved.txt") + `"}`, codeEscape},
		{"move in from outside", `{"type":"move","from":"` + filepath.Join(outside, "secret.txt") + `","to":"stolen.txt"}`, codeEscape},
		{"mkdir outside", `{"type":"mkdir","path":"../evil-dir"}`, codeEscape},
		{"into .git", `{"type":"create","path":".git/hooks/pre-commit","content":"x"}`, codeProtected},
		{"rewrite .git/config", `{"type":"rewrite","path":".git/config","content":"x"}`, codeProtected},
		{"into .agentic", `{"type":"rewrite","path":".agentic/config.json","content":"{\"permissionMode\":2}"}`, codeProtected},
		{"delete in .agentic", `{"type":"delete","path":".agentic/config.json"}`, codeProtected},
		{"mkdir in .agentic", `{"type":"mkdir","path":".agentic/x"}`, codeProtected},
		{"copy into .git", `{"type":"copy","from":"in.txt","to":".git/in.txt"}`, codeProtected},
		{"through a symlinked directory", `{"type":"create","path":"out/evil.txt","content":"x"}`, codeEscape},
		{"through a symlinked file", `{"type":"rewrite","path":"link.txt","content":"x"}`, codeEscape},
		{"replace through a symlinked file", `{"type":"replace","path":"link.txt","search":"secret","replacement":"x"}`, codeEscape},
		{"dot-dot after a symlink", `{"type":"create","path":"out/../escaped.txt","content":"x"}`, codeEscape},
		{"NUL byte", `{"type":"create","path":"a\u0000b","content":"x"}`, codeEscape},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newEWS(t, cfgAuto)
			w.write("in.txt", "in\n")
			w.write(".git/config", "[core]\n")
			if err := os.Symlink(outside, w.abs("out")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), w.abs("link.txt")); err != nil {
				t.Fatal(err)
			}
			cfg := w.state(".agentic/config.json")
			before := w.snapshot()
			outBefore := dirState(t, outside)
			parentBefore := dirState(t, filepath.Dir(w.dir))
			for _, action := range []string{"preview", "apply"} {
				wantErr(t, w.edit(action, tc.op), tc.code, exitFailed, "operation 1")
			}
			w.sameAs(before, "a jailed edit")
			if got := w.state(".agentic/config.json"); got != cfg {
				t.Errorf("config changed: %s", got)
			}
			if got := w.state(".git/config"); got != "[core]\n" {
				t.Errorf(".git/config changed: %s", got)
			}
			if got := dirState(t, outside); !reflect.DeepEqual(got, outBefore) {
				t.Errorf("outside changed: %v", got)
			}
			if got := dirState(t, filepath.Dir(w.dir)); !reflect.DeepEqual(got, parentBefore) {
				t.Errorf("the root's parent changed: %v", got)
			}
		})
	}
}

// dirState lists a directory's entries with their contents (one level).
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// Bad input is INVALID_INPUT, exit 2, never a panic.
func TestEditBadInput(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bad.json")
	cases := []struct {
		name  string
		args  []string
		input string
		msg   []string
	}{
		{"malformed --op", []string{"--op", `{"type":"create",`}, "", []string{"JSON"}},
		{"--op not an object", []string{"--op", `["create"]`}, "", nil},
		{"unknown op field", []string{"--op", `{"type":"create","path":"a","content":"x","mode":"0755"}`}, "", []string{"mode"}},
		{"misspelled field", []string{"--op", `{"type":"replace","path":"a","serch":"x","replacement":"y"}`}, "", []string{"serch"}},
		{"unknown type", []string{"--op", `{"type":"chmod","path":"a"}`}, "", []string{"chmod", "create"}},
		{"missing type", []string{"--op", `{"path":"a","content":"x"}`}, "", []string{"type"}},
		{"wrong field type", []string{"--op", `{"type":"splice","path":"a","start_line":"1"}`}, "", nil},
		{"no operations", nil, "", []string{"operations"}},
		{"empty operations in --input", []string{"--input", in}, `{"operations":[]}`, []string{"operations"}},
		{"malformed --input", []string{"--input", in}, `{"operations":[`, nil},
		{"unknown op field in --input", []string{"--input", in}, `{"operations":[{"type":"delete","path":"a","recursive":true}]}`, []string{"recursive"}},
		{"unknown request field in --input", []string{"--input", in}, `{"ops":[]}`, []string{"ops"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newEWS(t, cfgAuto)
			if tc.input != "" {
				os.WriteFile(in, []byte(tc.input), 0o644)
			}
			before := w.snapshot()
			for _, action := range []string{"preview", "apply"} {
				wantErr(t, w.aw(append([]string{"edit", action}, tc.args...)...), codeInvalid, exitUsage, tc.msg...)
			}
			w.sameAs(before, "bad input")
		})
	}
	t.Run("unknown transaction", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		for _, action := range []string{"commit", "rollback", "show"} {
			wantErr(t, w.aw("edit", action, "tx_0000000000000000000000"), codeNotFound, exitFailed)
			wantErr(t, w.aw("edit", action, "not-an-id"), codeNotFound, exitFailed)
			wantErr(t, w.aw("edit", action, "../../etc"), codeNotFound, exitFailed)
			wantErr(t, w.aw("edit", action), codeInvalid, exitUsage)
		}
	})
	t.Run("list limit", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		wantErr(t, w.aw("edit", "list", "--limit", "101"), codeInvalid, exitUsage, "limit")
	})
}

// show and list: the data shapes, newest first.
func TestEditShowList(t *testing.T) {
	w := newEWS(t, cfgAuto)
	w.write("a.txt", "a\n")
	var ids []string
	for _, op := range []string{
		`{"type":"create","path":"one.txt","content":"1\n"}`,
		`{"type":"replace","path":"a.txt","search":"a","replacement":"b"}`,
		`{"type":"delete","path":"a.txt"}`,
	} {
		r := w.edit("apply", op)
		wantOK(t, r, exitOK)
		ids = append(ids, str(t, r, ".data.transactionId"))
	}
	pre := w.edit("preview", `{"type":"mkdir","path":"d"}`)
	ids = append(ids, str(t, pre, ".data.transactionId"))

	s := w.aw("edit", "show", ids[1])
	wantOK(t, s, exitOK)
	if op := s.field(t, ".operation"); op != "edit.show" {
		t.Errorf("operation %v", op)
	}
	data := s.field(t, ".data").(map[string]any)
	for _, k := range []string{"transactionId", "status", "destructive", "destructiveReasons", "operations", "files", "directories", "diffPreview", "committed", "createdAt"} {
		if _, ok := data[k]; !ok {
			t.Errorf("edit show lacks data.%s: %s", k, s.Stdout)
		}
	}
	if str(t, s, ".data.status") != "applied" || !boolean(t, s, ".data.committed") {
		t.Errorf("show status: %s", s.Stdout)
	}
	f := s.field(t, ".data.files.0").(map[string]any)
	if f["path"] != "a.txt" || f["change"] != "modify" || f["existedBefore"] != true || f["additions"] != float64(1) || f["deletions"] != float64(1) {
		t.Errorf("files[0] %v", f)
	}
	if d := str(t, s, ".data.diffPreview"); !strings.Contains(d, "-a\n+b\n") {
		t.Errorf("diffPreview %q", d)
	}
	arts := list(t, s, ".artifacts")
	if len(arts) != 2 {
		t.Fatalf("artifacts %v", arts)
	}
	for _, a := range arts {
		m := a.(map[string]any)
		p := m["path"].(string)
		b, err := os.ReadFile(w.abs(p))
		if err != nil || float64(len(b)) != m["bytes"] || m["sha256"] == "" {
			t.Errorf("artifact %v does not describe %s (%d bytes, %v)", m, p, len(b), err)
		}
	}
	if d := w.aw("edit", "show", ids[2]); !boolean(t, d, ".data.destructive") || len(list(t, d, ".data.destructiveReasons")) != 1 {
		t.Errorf("show of a delete: %s", d.Stdout)
	}

	l := w.aw("edit", "list")
	wantOK(t, l, exitOK)
	txs := list(t, l, ".data.transactions")
	if len(txs) != 4 || l.field(t, ".data.total") != float64(4) {
		t.Fatalf("list: %s", l.Stdout)
	}
	for i, tx := range txs {
		m := tx.(map[string]any)
		if m["id"] != ids[len(ids)-1-i] {
			t.Errorf("list[%d] is %v, want %s (newest first)", i, m["id"], ids[len(ids)-1-i])
		}
		for _, k := range []string{"status", "fileCount", "directoryCount", "destructive", "createdAt"} {
			if _, ok := m[k]; !ok {
				t.Errorf("list entry lacks %s: %v", k, m)
			}
		}
	}
	if m := txs[0].(map[string]any); m["status"] != "planned" || m["directoryCount"] != float64(1) || m["fileCount"] != float64(0) {
		t.Errorf("newest entry %v", m)
	}
	l2 := w.aw("edit", "list", "--limit", "2")
	if n := len(list(t, l2, ".data.transactions")); n != 2 || !strings.Contains(str(t, l2, ".summary"), "newest 2") {
		t.Errorf("--limit 2: %s", l2.Stdout)
	}
	if got := str(t, w.aw("edit", "list", "--limit", "1"), ".data.transactions.0.id"); got != ids[3] {
		t.Errorf("--limit 1 shows %s, want %s", got, ids[3])
	}
	empty := newEWS(t, cfgAuto).aw("edit", "list")
	if n := len(list(t, empty, ".data.transactions")); n != 0 {
		t.Errorf("empty list: %s", empty.Stdout)
	}
}

// human runs a human verb (approval accept/deny) with an approver token
// kept outside the workspace, as a harness the human owns would.
func (w *ews) human(args ...string) Result {
	w.t.Helper()
	cfg := w.t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "aw"), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "aw", "approver.token"), []byte("edit-rules-token\n"), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return runAWEnv(w.t, w.dir, nil, []string{"XDG_CONFIG_HOME=" + cfg, "AW_APPROVER_TOKEN=edit-rules-token"}, args...)
}

// statusOf is the status of one approval record in state.json.
func (w *ews) statusOf(id string) string {
	w.t.Helper()
	raw, err := os.ReadFile(w.abs(".agentic/approvals/state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var s struct {
		Records []struct{ ID, Status string } `json:"records"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		w.t.Fatal(err)
	}
	for _, r := range s.Records {
		if r.ID == id {
			return r.Status
		}
	}
	return "(none)"
}

// Manual mode after a human decided: the resume call runs, the approval is
// bound to the operations and the files' contents, and is consumed once.
func TestEditManualApproved(t *testing.T) {
	op := `{"type":"replace","path":"a.txt","search":"old","replacement":"new"}`
	stage := func(t *testing.T, w *ews) (tx, id string) {
		t.Helper()
		r := w.edit("apply", op)
		wantOK(t, r, exitPending)
		return str(t, r, ".data.transactionId"), str(t, r, ".data.approval.id")
	}
	t.Run("accept, then the resume call commits and consumes", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("a.txt", "old\n")
		tx, id := stage(t, w)
		wantOK(t, w.human("approval", "accept", id), exitOK)
		if s := w.statusOf(id); s != "approved" {
			t.Fatalf("accepted record is %s", s)
		}
		w.check(map[string]string{"a.txt": "old\n"}) // accepting runs nothing
		c := w.aw("edit", "commit", tx)
		wantOK(t, c, exitOK)
		if s := str(t, c, ".data.status"); s != "applied" {
			t.Fatalf("resume commit: %s", c.Stdout)
		}
		w.check(map[string]string{"a.txt": "new\n"})
		if s := w.statusOf(id); s != "consumed" {
			t.Errorf("approval is %s after the commit, want consumed", s)
		}
		// Re-committing is a no-op and stages nothing.
		n := w.approvals()
		again := w.aw("edit", "commit", tx)
		wantOK(t, again, exitOK)
		if !boolean(t, again, ".data.noOp") || w.approvals() != n {
			t.Errorf("re-commit after approval: %s", again.Stdout)
		}
		// Approving the commit never authorises undoing it.
		rb := w.aw("edit", "rollback", tx)
		wantOK(t, rb, exitPending)
		if got := str(t, rb, ".data.approval.id"); got == id {
			t.Errorf("rollback reused the commit's approval")
		}
		w.check(map[string]string{"a.txt": "new\n"})
		wantOK(t, w.human("approval", "accept", str(t, rb, ".data.approval.id")), exitOK)
		wantOK(t, w.aw("edit", "rollback", tx), exitOK)
		w.check(map[string]string{"a.txt": "old\n"})
		// Rolling back again is a no-op: exit 0, nothing staged.
		n = w.approvals()
		wantOK(t, w.aw("edit", "rollback", tx), exitOK)
		if w.approvals() != n {
			t.Errorf("a no-op rollback staged a record")
		}
	})
	t.Run("accept, then the identical apply runs", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("a.txt", "old\n")
		_, id := stage(t, w)
		wantOK(t, w.human("approval", "accept", id), exitOK)
		r := w.edit("apply", op)
		wantOK(t, r, exitOK)
		w.check(map[string]string{"a.txt": "new\n"})
		if s := w.statusOf(id); s != "consumed" {
			t.Errorf("approval is %s, want consumed", s)
		}
	})
	t.Run("a touched file changed: staged again, the approval stays approved", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("a.txt", "old\n")
		tx, id := stage(t, w)
		wantOK(t, w.human("approval", "accept", id), exitOK)
		w.write("a.txt", "old\nplus a user line\n")
		before := w.snapshot()
		r := w.edit("apply", op)
		wantOK(t, r, exitPending)
		if got := str(t, r, ".data.approval.id"); got == id {
			t.Errorf("the changed file matched the old approval %s", id)
		}
		if got := str(t, r, ".data.transactionId"); got == tx {
			t.Errorf("the re-issued apply did not preview a new transaction")
		}
		if s := w.statusOf(id); s != "approved" {
			t.Errorf("the original approval is %s, want still approved", s)
		}
		// The original transaction is stale now.
		wantErr(t, w.aw("edit", "commit", tx), codeConflict, exitFailed, "stale", "a.txt")
		w.sameAs(before, "a re-staged apply and a stale commit")
		if s := w.statusOf(id); s != "approved" {
			t.Errorf("a stale commit consumed the approval (%s)", s)
		}
	})
	t.Run("deny blocks the identical operation", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgManual)
		w.write("a.txt", "old\n")
		tx, id := stage(t, w)
		wantOK(t, w.human("approval", "deny", id, "not now"), exitOK)
		r := w.aw("edit", "commit", tx)
		wantErr(t, r, "APPROVAL_DENIED", exitFailed, id)
		wantErr(t, w.edit("apply", op), "APPROVAL_DENIED", exitFailed)
		w.check(map[string]string{"a.txt": "old\n"})
	})
	t.Run("Plan mode with an approved plan runs", func(t *testing.T) {
		t.Parallel()
		w := newEWS(t, cfgPlan)
		w.write("a.txt", "old\n")
		wantErr(t, w.edit("apply", op), codeApprovalRq, exitFailed)
		in := filepath.Join(t.TempDir(), "plan.json")
		os.WriteFile(in, []byte(`{"title":"Edit a","objective":"change a.txt","steps":["replace old with new"]}`), 0o644)
		p := w.aw("plan", "propose", "--input", in)
		wantOK(t, p, exitOK)
		planID := str(t, p, ".data.planId")
		wantErr(t, w.edit("apply", op), codeApprovalRq, exitFailed, planID) // pending, not approved
		wantOK(t, w.human("approval", "accept", planID), exitOK)
		wantOK(t, w.edit("apply", op), exitOK)
		w.check(map[string]string{"a.txt": "new\n"})
		// Destructive is still refused with the plan approved.
		w.config(cfgPlanSafe)
		wantErr(t, w.edit("apply", `{"type":"delete","path":"a.txt"}`), codeProtected, exitFailed)
		w.check(map[string]string{"a.txt": "new\n"})
	})
}

// The jail also holds for dangling symlinks and for a symlink swapped in
// between the preview and the commit.
func TestEditJailSymlinks(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("dangling symlinks pointing out", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		os.Symlink(filepath.Join(outside, "nofile.txt"), w.abs("dang.txt"))
		os.Symlink(filepath.Join(outside, "nodir"), w.abs("ddir"))
		before := w.snapshot()
		for _, op := range []string{
			`{"type":"create","path":"dang.txt","content":"x","overwrite":true}`,
			`{"type":"rewrite","path":"dang.txt","content":"x","create_if_missing":true}`,
			`{"type":"create","path":"ddir/x.txt","content":"x"}`,
			`{"type":"mkdir","path":"ddir/sub"}`,
		} {
			r := w.edit("apply", op)
			if r.Env["ok"] != false {
				t.Errorf("%s succeeded: %s", op, r.Stdout)
			}
		}
		w.sameAs(before, "edits through dangling symlinks")
		if got := dirState(t, outside); len(got) != 0 {
			t.Errorf("written outside: %v", got)
		}
	})
	t.Run("a forced rollback through a swapped-in symlink", func(t *testing.T) {
		out, _ := filepath.EvalSymlinks(t.TempDir())
		w := newEWS(t, cfgAuto)
		w.write("sub/keep.txt", "k\n")
		tx := str(t, w.edit("apply", `{"type":"replace","path":"sub/keep.txt","search":"k","replacement":"K"}`), ".data.transactionId")
		os.Rename(w.abs("sub"), w.abs("moved"))
		os.WriteFile(filepath.Join(out, "keep.txt"), []byte("K\n"), 0o644)
		if err := os.Symlink(out, w.abs("sub")); err != nil {
			t.Fatal(err)
		}
		wantErr(t, w.aw("edit", "rollback", tx), codeEscape, exitFailed, "sub/keep.txt")
		wantErr(t, w.aw("edit", "rollback", tx, "--force"), codeEscape, exitFailed, "sub/keep.txt")
		if got := dirState(t, out); !reflect.DeepEqual(got, map[string]string{"keep.txt": "K\n"}) {
			t.Errorf("written outside: %v", got)
		}
		// The refusal leaves no half-done rollback behind: other calls work,
		// and the transaction is still applied.
		wantOK(t, w.aw("inspect", "list"), exitOK)
		if s := str(t, w.aw("edit", "show", tx), ".data.status"); s != "applied" {
			t.Errorf("transaction is %s", s)
		}
	})
	t.Run("mkdir rollback never removes a directory through a swapped-in symlink", func(t *testing.T) {
		out, _ := filepath.EvalSymlinks(t.TempDir())
		w := newEWS(t, cfgAuto)
		tx := str(t, w.edit("apply", `{"type":"mkdir","path":"a/b"}`, `{"type":"mkdir","path":"c"}`), ".data.transactionId")
		os.RemoveAll(w.abs("a"))
		os.Mkdir(filepath.Join(out, "b"), 0o755)
		os.Symlink(out, w.abs("a"))
		os.Remove(w.abs("c"))
		os.Mkdir(filepath.Join(out, "c"), 0o755)
		os.Symlink(filepath.Join(out, "c"), w.abs("c"))
		rb := w.aw("edit", "rollback", tx)
		wantOK(t, rb, exitOK)
		if fi, err := os.Stat(filepath.Join(out, "b")); err != nil || !fi.IsDir() {
			t.Errorf("rollback removed a directory outside the workspace through a symlinked parent")
		}
		if fi, err := os.Stat(filepath.Join(out, "c")); err != nil || !fi.IsDir() {
			t.Errorf("rollback removed a directory outside the workspace through a symlink")
		}
		left := list(t, rb, ".data.leftDirectories")
		if len(left) != 2 {
			t.Errorf("leftDirectories %v, want a/b and c", left)
		}
	})
	t.Run("a directory swapped for a symlink after the preview", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.write("sub/keep.txt", "k\n")
		pre := w.edit("preview", `{"type":"create","path":"sub/new.txt","content":"x"}`, `{"type":"replace","path":"sub/keep.txt","search":"k","replacement":"K"}`)
		wantOK(t, pre, exitOK)
		os.Rename(w.abs("sub"), w.abs("moved"))
		os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("k\n"), 0o644)
		if err := os.Symlink(outside, w.abs("sub")); err != nil {
			t.Fatal(err)
		}
		r := w.aw("edit", "commit", str(t, pre, ".data.transactionId"))
		if r.Env["ok"] != false {
			t.Fatalf("commit through the swapped symlink succeeded: %s", r.Stdout)
		}
		if got := dirState(t, outside); !reflect.DeepEqual(got, map[string]string{"keep.txt": "k\n"}) {
			t.Errorf("written outside: %v", got)
		}
	})
}

// The jail's other edges: --scope narrows it, protectedPatterns and
// denyPaths hold for edits, and the read tier previews but never applies.
func TestEditScopeTierPatterns(t *testing.T) {
	cases := []struct {
		name, cfg string
		args      []string
		op        string
		code      string
	}{
		{"outside the scope", cfgAuto, []string{"--scope", "sc"}, `{"type":"create","path":"other/x.txt","content":"x"}`, codeEscape},
		{"protectedPatterns", `{"permissionMode":2,"protectedPatterns":["*.lock"]}`, nil, `{"type":"create","path":"deep/a.lock","content":"x"}`, codeProtected},
		{"denyPaths default", cfgAuto, nil, `{"type":"create","path":"sub/.env.local","content":"x"}`, codeEscape},
		{"copy from a denied file", cfgAuto, nil, `{"type":"copy","from":".env","to":"leak.txt"}`, codeEscape},
		{"read tier applies nothing", cfgAuto, []string{"--tier", "read"}, `{"type":"create","path":"sc/y.txt","content":"x"}`, "TOOL_DISABLED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newEWS(t, tc.cfg)
			w.setup(map[string]string{"sc": isDirSetup, "other": isDirSetup, ".env": "SECRET=1\n"})
			before := w.snapshot()
			wantErr(t, w.aw(append(append([]string{}, tc.args...), "edit", "apply", "--op", tc.op)...), tc.code, exitFailed)
			w.sameAs(before, tc.name)
		})
	}
	t.Run("inside the scope", func(t *testing.T) {
		w := newEWS(t, cfgAuto)
		w.setup(map[string]string{"sc": isDirSetup})
		r := w.aw("--scope", "sc", "edit", "apply", "--op", `{"type":"create","path":"sc/x.txt","content":"x"}`)
		wantOK(t, r, exitOK)
		if p := str(t, r, ".data.files.0.path"); p != "sc/x.txt" {
			t.Errorf("path %s, want root-relative sc/x.txt", p)
		}
		wantOK(t, w.aw("--tier", "read", "edit", "preview", "--op", `{"type":"create","path":"sc/y.txt","content":"y"}`), exitOK)
	})
}

// TestEditCopyMoveNeverMintExecutables: copy and move give a new file
// the source's permissions without the executable bits, so an agent cannot
// turn any executable it can read (a git hook sample, an allowPaths binary)
// into ./bin/ls and run its own code under an allowed command's name.
func TestEditCopyMoveNeverMintExecutables(t *testing.T) {
	w := newEWS(t, `{"permissionMode":2,"allowDestructiveEdits":true,"commands":{"allow":["ls"]}}`)
	w.write("hook.sample", "#!/bin/sh\necho pwned\n")
	w.write("kept", "#!/bin/sh\necho kept\n")
	for _, p := range []string{"hook.sample", "kept"} {
		if err := os.Chmod(w.abs(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wantOK(t, w.edit("apply", `{"type":"copy","from":"hook.sample","to":"bin/ls"}`), 0)
	wantOK(t, w.edit("apply", `{"type":"move","from":"hook.sample","to":"sbin/ls"}`), 0)
	for _, p := range []string{"bin/ls", "sbin/ls"} {
		fi, err := os.Stat(w.abs(p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o111 != 0 {
			t.Errorf("%s is %v: copy/move minted an executable", p, fi.Mode().Perm())
		}
		if r := w.aw("command", "run", "--", "./"+p); r.Env["ok"] != false {
			t.Errorf("./%s ran as ls: %s", p, r.Stdout)
		}
	}
	// Overwriting an existing file keeps that file's own permissions.
	w.write("plain", "x\n")
	wantOK(t, w.edit("apply", `{"type":"copy","from":"plain","to":"kept","overwrite":true}`), 0)
	if fi, _ := os.Stat(w.abs("kept")); fi.Mode().Perm() != 0o755 {
		t.Errorf("kept is %v after an overwrite, want 0755", fi.Mode().Perm())
	}
}
