package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

const hostileAllow = `"git","sed","awk","cat","head","gzip","make","go","npm","rsync","zip","scp","emacs","printf","env","iconv","ls","nohup","less","vim","tar","gcc","man"`

// TestPolicyHostileFamilies: one variant of each family a hostile review
// broke, through the built binary, in argv mode and in sh mode.
func TestPolicyHostileFamilies(t *testing.T) {
	for _, interp := range []string{"none", "sh"} {
		dir := toolsWorkspace(t, interp, hostileAllow, `"rm"`)
		os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=1\n"), 0o644)
		os.MkdirAll(filepath.Join(dir, "sub", ".agentic"), 0o755)
		os.WriteFile(filepath.Join(dir, "sub", ".agentic", "config.json"), []byte(`{"permissionMode":2}`), 0o644)
		os.WriteFile(filepath.Join(dir, "names.txt"), []byte(".env\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "evil.patch"), []byte("--- /dev/null\n+++ b/.agentic/config.json\n@@ -0,0 +1 @@\n+{}\n"), 0o644)
		for _, tc := range []struct{ line, reason string }{
			{"cat .env", "path-escape"},
			{"git show HEAD:.env", "path-escape"},
			{"gzip .git/config", "path-escape"},
			{"make --ev='x:;id'", "nested-command"},
			{"go vet -vettool=./evil ./...", "denied-pattern"},
			{"go -C /tmp build", "path-escape"},
			{"rsync -a sub/ .git/hooks/", "path-escape"},
			{"zip -TT./evil -T out.zip keep.txt", "denied-pattern"},
			{"scp -qS ./evil keep.txt host:x", "denied-pattern"},
			{"emacs -eval '(kill-emacs)'", "denied-pattern"},
			{"sed 's/[/]/;p;/w.agentic/x' keep.txt", "denied-pattern"},
			{"sed '-i.git/hooks/*' s/a/b/ keep.txt", "denied-pattern"},
			{"git --work-tree=sub add -f .agentic/config.json", "denied-pattern"},
			{"git checkout -- .agentic/config.json", "path-escape"},
			{"git apply evil.patch", "path-escape"},
			{"git clean -fdx", "denied-pattern"},
			{"git fetch ./sub main", "nested-command"},
			{"env GCONV_PATH=. iconv -f x -t y keep.txt", "denied-pattern"},
			// git operands that move, delete or rewrite files, and the
			// pathspecs git reads as patterns or magic
			{"git mv .agentic/config.json keep2.txt", "path-escape"},
			{"git rm --cached .env", "path-escape"},
			{"git checkout -- ../outside", "path-escape"},
			{"git checkout -- ':(icase).AGENTIC/config.json'", "denied-pattern"},
			{"git add -f '.agenti?/config.json'", "path-escape"},
			{"git log -p -- '.en*'", "path-escape"},
			{"git log -p -- :/.env", "path-escape"},
			{"git rm --pathspec-from-file=names.txt", "denied-pattern"},
			// files named inside another file: tags, error files, name lists, response files
			{"less -t main", "denied-pattern"},
			{"vim -t main", "denied-pattern"},
			{"vim -q names.txt", "denied-pattern"},
			{"tar -cf a.tar -T names.txt", "denied-pattern"},
			{"rsync -a --files-from=names.txt . dist/", "denied-pattern"},
			{"gcc @names.txt", "denied-pattern"},
			{"man -l names.txt", "denied-pattern"},
			{"man ./names.txt", "denied-pattern"},
		} {
			line := tc.line
			allowed, reason, msg := verdict(t, dir, "--line", line)
			if allowed || reason != tc.reason {
				t.Errorf("%s %q: allowed=%v %s (%s), want %s", interp, line, allowed, reason, msg, tc.reason)
			}
		}
		for _, line := range []string{"go test ./...", "npm test", "make test", "rsync -a sub/ dist/", "zip -r out.zip sub", "git status", "cat keep.txt .git/config", "git grep -n foo -- '*.go'", "git mv keep.txt keep2.txt", "less -N keep.txt", "tar -czf a.tgz keep.txt"} {
			if allowed, reason, msg := verdict(t, dir, "--line", line); !allowed {
				t.Errorf("%s %q: refused %s (%s)", interp, line, reason, msg)
			}
		}
	}
	// sh only: a glob is what it matches; a protected working directory
	dir := toolsWorkspace(t, "sh", hostileAllow, "")
	os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=1\n"), 0o644)
	for _, line := range []string{"cat .e*", "gzip .g?t/config", "cd .git && nohup ls"} {
		if allowed, reason, _ := verdict(t, dir, "--line", line); allowed || reason != "path-escape" {
			t.Errorf("%q: allowed=%v %s, want path-escape", line, allowed, reason)
		}
	}
	if r := runAW(t, dir, nil, "policy", "check-command", "--cwd", ".git", "--", "ls"); r.field(t, ".data.reason") != "path-escape" {
		t.Errorf("--cwd .git: %s", r.Stdout)
	}
}

// TestPolicyEditorFromStdin: a tool that starts an editor on its own gets
// one that reads nothing, so keys piped into git commit cannot reach vi's
// :! command. Run for real, with the OS sandbox off so that the policy
// and the spawned environment are the only walls.
func TestPolicyEditorFromStdin(t *testing.T) {
	testenv.Git(t)
	if _, err := exec.LookPath("vi"); err != nil {
		testenv.Missing(t, "vi", "apt-get install vim-tiny")
	}
	dir := toolsWorkspace(t, "sh", `"git","printf"`, "")
	cfg := filepath.Join(dir, ".agentic", "config.json")
	b, _ := os.ReadFile(cfg)
	text := strings.Replace(string(b), `"commands": {`, `"commands": {"sandbox": "off", `, 1)
	text = strings.Replace(text, `"inheritEnv": ["PATH", "HOME"]`, `"inheritEnv": ["PATH", "HOME", "TERM"]`, 1)
	os.WriteFile(cfg, []byte(text), 0o644)
	os.RemoveAll(filepath.Join(dir, ".git"))
	for _, args := range [][]string{{"init", "-q", dir}, {"-C", dir, "config", "user.name", "t"}, {"-C", dir, "config", "user.email", "t@example.com"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	// With a terminal type inherited, git starts its default editor.
	r := runAWEnv(t, dir, nil, []string{"TERM=xterm"}, "command", "run", "--line", "printf ':!touch "+marker+"\\n:q!\\n' | git commit --allow-empty")
	if !strings.Contains(string(r.Stdout), `"operation":"command.run"`) {
		t.Fatalf("command run: %s", r.Stdout)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("vi ran the piped :! command: %s", r.Stdout)
	}
}
