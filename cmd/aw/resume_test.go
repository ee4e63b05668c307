package main

import (
	"encoding/json"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"
)

// TestResumeCommandLines: a staged call names its resume as a command line
// a human or a CLI agent would type, and that line is the same operation:
// run through the binary it stages the very same approval (same hash, same
// id). Each gated action with a short spelling is staged with arguments that
// use every part of it (positionals, valued and boolean flags, "--").
func TestResumeCommandLines(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 0, "commands": {"allow": ["echo", "go"], "testCommand": "go test ./..."},
		"research": {"enabled": true}, "browser": {"enabled": true}, "allowDestructiveEdits": true}`)
	write(t, dir, "a.txt", "changed\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "remote", "add", "origin", t.TempDir())
	preview := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"create","path":"n e w.txt","content":"x\n"}`)
	tx, _ := preview.field(t, ".data.transactionId").(string)
	cases := []struct {
		tool string
		args map[string]any
		want string // the resume command line
	}{
		{"workspace_edit", map[string]any{"action": "commit", "transaction_id": tx}, "aw edit commit " + tx},
		{"workspace_command", map[string]any{"action": "run", "executable": "echo", "args": []any{"hi", "a b", "--x"}, "cwd": "src", "timeout_seconds": 5},
			"aw command run --cwd src --timeout 5 -- echo hi 'a b' --x"},
		{"workspace_command", map[string]any{"action": "start", "line": "echo 'it''s'"}, `aw command start --line 'echo '\''it'\'''\''s'\'''`},
		{"workspace_command", map[string]any{"action": "test", "pattern": "Test X$", "path": "src", "timeout_seconds": 7},
			"aw command test --path src --pattern 'Test X$' --timeout 7"},
		{"workspace_vcs", map[string]any{"action": "add", "paths": []any{"a.txt", "src/lib"}}, "aw vcs add a.txt src/lib"},
		{"workspace_vcs", map[string]any{"action": "commit", "message": "fix: the thing\n\nbody"}, "aw vcs commit --message 'fix: the thing\n\nbody'"},
		{"workspace_vcs", map[string]any{"action": "checkout", "rev": "main"}, "aw vcs checkout main"},
		{"workspace_vcs", map[string]any{"action": "branch", "name": "topic", "create": true, "start": "HEAD"}, "aw vcs branch topic --create --start HEAD"},
		{"workspace_vcs", map[string]any{"action": "push", "remote": "origin", "force": true}, "aw vcs push --force --remote origin"},
		{"workspace_research", map[string]any{"action": "search", "query": "quic loss", "limit": 3}, "aw research search 'quic loss' --limit 3"},
		{"workspace_research", map[string]any{"action": "fetch", "url": "https://example.com/a?b=c", "timeout_seconds": 9}, "aw research fetch 'https://example.com/a?b=c' --timeout 9"},
		{"workspace_browser", map[string]any{"action": "open", "url": "https://93.184.215.14/x"}, "aw browser open https://93.184.215.14/x"},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(c.args)
		name := c.tool + "." + c.args["action"].(string)
		t.Run(name, func(t *testing.T) {
			first := awGit(t, dir, "call", c.tool, string(raw))
			if first.Code != 3 {
				t.Fatalf("aw call %s %s: exit %d, want 3 (staged)\n%s", c.tool, raw, first.Code, first.Stdout)
			}
			id := first.field(t, ".data.approval.id")
			line, _ := first.field(t, ".data.approval.resume.command").(string)
			if line != c.want {
				t.Fatalf("resume command\n  %s\nwant\n  %s", line, c.want)
			}
			words, err := shell.Fields(line, nil)
			if err != nil || len(words) < 3 || words[0] != "aw" {
				t.Fatalf("resume command %q does not split as an aw command line: %v", line, err)
			}
			again := awGit(t, dir, words[1:]...)
			if again.Code != 3 || again.field(t, ".data.approval.id") != id {
				t.Fatalf("%s: exit %d, approval %v; want exit 3 and the same approval %v\n%s", line, again.Code, again.Env["data"], id, again.Stdout)
			}
		})
	}
	// A staged apply resumes as the commit of the transaction it planned.
	ops := `{"action":"apply","operations":[{"type":"create","path":"b.txt","content":"y\n"}]}`
	staged := awGit(t, dir, "call", "workspace_edit", ops)
	line, _ := staged.field(t, ".data.approval.resume.command").(string)
	words, err := shell.Fields(line, nil)
	if staged.Code != 3 || err != nil || !strings.HasPrefix(line, "aw edit commit tx_") || len(words) != 4 {
		t.Fatalf("apply: exit %d, resume command %q (%v)", staged.Code, line, err)
	}
	if again := awGit(t, dir, words[1:]...); again.field(t, ".data.approval.id") != staged.field(t, ".data.approval.id") {
		t.Fatalf("%s staged another approval: %s", line, again.Stdout)
	}
}
