package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shellWS is a workspace in interpreter sh with the given mode and allow
// list.
func shellWS(t *testing.T, mode int, allow string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	cfg := `{"permissionMode": ` + string(rune('0'+mode)) + `, "commands": {"interpreter": "sh", "allow": ` + allow + `}}`
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestShellReadingDifferentialsRefused: lines that the parser and /bin/sh
// read differently (a hidden command after a continued here-document
// delimiter or a continued comment, single quotes inside a double-quoted
// ${…}) are refused as unsupported-syntax, by check-command and by run,
// and the hidden command never runs.
func TestShellReadingDifferentialsRefused(t *testing.T) {
	dir := shellWS(t, 2, `["echo", "cat", "touch", "alias"]`) // alias is refused even when allowed
	for _, tc := range []struct{ name, line, msg string }{
		{"heredoc continuation", "cat <<E\n\\\nE\ntouch pwned\nE", "line continuation"},
		{"heredoc continuation mid-line", "cat <<E\nab\\\nE\ntouch pwned\nE\necho after", "line continuation"},
		{"comment backslash", "echo a # c \\\ntouch pwned", "comment ending in a backslash"},
		{"comment backslash alone", "# c \\\ntouch pwned", "comment ending in a backslash"},
		{"quotes in ${…}", `echo "${v:-'$(touch pwned)'}"`, "inside a ${…} operand"},
		{"nested backticks", "echo `echo \\`touch pwned\\``", "backtick substitution"},
		{"carriage return", "echo a\rtouch pwned", "carriage return"},
		{"heredoc in substitution", "echo $(cat <<E\nx\nE\n)", "here-document inside a substitution"},
		{"fd above 9", "echo a 10>pwned", "above 9"},
		{"non-breaking space", "echo\u00a0a", "U+00A0"},
		{"look-alike semicolon", "echo a；touch pwned", "looks like shell punctuation"},
		{"alias", "alias ls=touch", "alias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runAW(t, dir, nil, "policy", "check-command", "--line", tc.line)
			if r.field(t, ".data.allowed") != false || r.field(t, ".data.reason") != "unsupported-syntax" {
				t.Fatalf("check-command allowed or gave another reason: %s", r.Stdout)
			}
			if msg, _ := r.field(t, ".data.message").(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not name %q", msg, tc.msg)
			}
			r = runAW(t, dir, nil, "command", "run", "--line", tc.line)
			if r.Code != 1 || r.field(t, ".error.code") != "COMMAND_DENIED" || r.field(t, ".error.details.reason") != "unsupported-syntax" {
				t.Fatalf("run was not refused as unsupported-syntax (exit %d): %s", r.Code, r.Stdout)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatal("the hidden command ran")
			}
		})
	}
}

// TestShellRunsCanonicalLine: a line with odd spacing, quoting and a
// continuation runs as the checker's re-print; the envelope and the job
// record show that text (and the submitted one), and /bin/sh received it.
func TestShellRunsCanonicalLine(t *testing.T) {
	dir := shellWS(t, 2, `["echo"]`)
	const submitted = "ec\\\nho   'a  b'    \"c\"   >   out.txt"
	const canonical = `echo 'a  b' "c" > out.txt`
	r := runAW(t, dir, nil, "policy", "check-command", "--line", submitted)
	if r.field(t, ".data.allowed") != true || r.field(t, ".data.canonical") != canonical {
		t.Fatalf("check-command: %s", r.Stdout)
	}
	if s, _ := r.field(t, ".summary").(string); !strings.Contains(s, canonical) || !strings.Contains(s, "re-printed") {
		t.Errorf("the summary does not show the canonical line: %q", s)
	}
	r = runAW(t, dir, nil, "command", "run", "--line", submitted)
	if r.Code != 0 {
		t.Fatalf("run: %s", r.Stdout)
	}
	if r.field(t, ".data.line") != canonical || r.field(t, ".data.submittedLine") != submitted {
		t.Errorf("line %v, submittedLine %v", r.field(t, ".data.line"), r.field(t, ".data.submittedLine"))
	}
	argv, _ := r.field(t, ".data.argv").([]any)
	if len(argv) != 3 || argv[0] != "/bin/sh" || argv[1] != "-c" || argv[2] != canonical {
		t.Errorf("argv %v, want /bin/sh -c %q", argv, canonical)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(got) != "a  b c\n" {
		t.Errorf("out.txt = %q", got)
	}
	// An ordinary line prints as itself: nothing extra is recorded.
	r = runAW(t, dir, nil, "command", "run", "--line", "echo ok > ok.txt && echo done")
	if r.field(t, ".data.line") != "echo ok > ok.txt && echo done" {
		t.Errorf("line %v", r.field(t, ".data.line"))
	}
	if _, err := lookup(any(r.Env), ".data.submittedLine"); err == nil {
		t.Errorf("submittedLine recorded for a line that prints as itself: %s", r.Stdout)
	}
}

// TestShellApprovalBoundToCanonical: in Manual mode the human is shown the
// canonical line, the approval is bound to it (a differently spaced line
// with the same reading finds the same approval; another reading does
// not), and the approved run executes it.
func TestShellApprovalBoundToCanonical(t *testing.T) {
	dir := shellWS(t, 0, `["echo"]`)
	const canonical = `echo 'x y' > a.txt`
	r := runAW(t, dir, nil, "command", "run", "--line", "echo  'x y'  >a.txt")
	if r.Code != 3 {
		t.Fatalf("not staged: %s", r.Stdout)
	}
	id, _ := r.field(t, ".data.approval.id").(string)
	if title, _ := r.field(t, ".data.approval.title").(string); !strings.Contains(title, canonical) {
		t.Errorf("title %q does not show %q", title, canonical)
	}
	rec := state(t, dir)[id]
	if !strings.Contains(rec.Review, "$ "+canonical) || !strings.Contains(rec.Review, "re-printed") {
		t.Errorf("review does not show the canonical line:\n%s", rec.Review)
	}
	if again := runAW(t, dir, nil, "command", "run", "--line", "echo 'x y' > a.txt"); again.field(t, ".data.approval.id") != id {
		t.Errorf("the same reading staged another approval: %s", again.Stdout)
	}
	if other := runAW(t, dir, nil, "command", "run", "--line", "echo 'x  y' > a.txt"); other.field(t, ".data.approval.id") == id {
		t.Errorf("another reading matched the approval: %s", other.Stdout)
	}
	tok := approver(t)
	if a := runAWEnv(t, dir, nil, tok, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	r = runAW(t, dir, nil, "command", "run", "--line", "echo  'x y'  >a.txt")
	if r.Code != 0 || r.field(t, ".data.line") != canonical {
		t.Fatalf("approved run: %s", r.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "x y\n" {
		t.Errorf("a.txt = %q", got)
	}
}
