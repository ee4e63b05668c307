package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// toolsWorkspace is a workspace whose settings allow the runners and tools
// of the cases below, with rm denied.
func toolsWorkspace(t *testing.T, interp string, allow, deny string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{".agentic", ".git", "sub"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep\n"), 0o644)
	cfg := `{"permissionMode": 2, "commands": {"interpreter": "` + interp + `", "allow": [` + allow + `], "deny": [` + deny + `], "inheritEnv": ["PATH", "HOME"]}}`
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func verdict(t *testing.T, dir string, args ...string) (allowed bool, reason, message string) {
	t.Helper()
	r := runAW(t, dir, nil, append([]string{"policy", "check-command"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("check-command %v: exit %d %s", args, r.Code, r.Stdout)
	}
	a, _ := r.field(t, ".data.allowed").(bool)
	reason, _ = lookupString(r, ".data.reason")
	message, _ = lookupString(r, ".data.message")
	return a, reason, message
}

func lookupString(r Result, path string) (string, bool) {
	v, err := lookup(any(r.Env), path)
	if err != nil {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

const runnerAllow = `"xargs","env","find","timeout","nice","nohup","npx","sh","git","ls","grep","echo","cat","command","setsid","stdbuf"`

// TestPolicyRunnersInAllowReachDenied: a runner named in commands.allow
// has its inner command checked like any other; deny always wins.
func TestPolicyRunnersInAllowReachDenied(t *testing.T) {
	dir := toolsWorkspace(t, "none", runnerAllow, `"rm","curl"`)
	for _, argv := range [][]string{
		{"xargs", "rm"}, {"xargs", "-0", "-n1", "rm", "-f"}, {"xargs", "-I{}", "rm", "{}"},
		{"env", "rm", "x"}, {"env", "-i", "FOO=1", "rm", "x"}, {"env", "-u", "HOME", "--", "curl", "x"},
		{"find", ".", "-exec", "rm", "{}", ";"}, {"find", ".", "-execdir", "rm", "{}", "+"}, {"find", ".", "-ok", "rm", "{}", ";"}, {"find", ".", "-okdir", "curl", "{}", ";"},
		{"find", ".", "-name", "x", "-o", "-exec", "env", "rm", "{}", ";"},
		{"timeout", "-k", "1", "5", "rm", "x"}, {"nice", "-n5", "rm", "x"}, {"nice", "-10", "rm"}, {"nohup", "rm", "x"}, {"stdbuf", "-oL", "rm"},
		{"npx", "rm", "x"}, {"npx", "-p", "pkg", "rm", "x"}, {"npx", "--package=pkg", "--", "curl", "x"},
		{"sh", "-c", "rm x"}, {"sh", "-ec", "echo a && rm x"}, {"sh", "-c", "echo $(curl x)"}, {"setsid", "-w", "rm", "x"},
		{"command", "rm", "x"}, {"command", "-v", "rm"}, {"command", "rm", "-v", "x"}, {"command", "-p", "-V", "rm"},
		{"timeout", "5", "env", "nice", "command", "rm", "x"},
	} {
		allowed, reason, msg := verdict(t, dir, append([]string{"--"}, argv...)...)
		if allowed || reason != "denied-executable" {
			t.Errorf("%q: allowed=%v %s %s", argv, allowed, reason, msg)
		}
	}
	// The inner command cannot be known: refused, whatever allow says.
	for _, argv := range [][]string{{"sh", "script.sh"}, {"sh"}, {"env", "-S", "rm x"}, {"npx", "-c", "rm x"}, {"find", ".", "-exec"}} {
		if allowed, reason, msg := verdict(t, dir, append([]string{"--"}, argv...)...); allowed || reason != "nested-command" {
			t.Errorf("%q: allowed=%v %s %s", argv, allowed, reason, msg)
		}
	}
	// A real run: xargs with rm denied deletes nothing.
	r := runAW(t, dir, []byte("keep.txt\n"), "command", "run", "--", "xargs", "rm")
	if r.Code != 1 || r.field(t, ".error.details.reason") != "denied-executable" {
		t.Errorf("xargs rm ran: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Errorf("keep.txt is gone: %v", err)
	}
}

// TestPolicyLookAlikes: a path-qualified or symlinked executable is judged
// by what it resolves to.
func TestPolicyLookAlikes(t *testing.T) {
	rm := testenv.Need(t, "rm", "apt-get install coreutils")
	rm, _ = filepath.EvalSymlinks(rm)
	dir := toolsWorkspace(t, "none", runnerAllow, `"rm"`)
	outside := t.TempDir()
	os.Symlink(rm, filepath.Join(outside, "ls"))
	os.Symlink(rm, filepath.Join(dir, "ls"))
	os.Symlink(rm, filepath.Join(dir, "sub", "cat"))
	for _, argv := range [][]string{
		{"/usr/bin/../bin/rm", "x"}, {filepath.Dir(rm) + "//rm", "x"}, {outside + "/ls", "keep.txt"}, {"./ls", "keep.txt"}, {"sub/cat", "keep.txt"},
		{"env", outside + "/ls", "x"}, {"timeout", "5", "./ls", "x"}, {"xargs", "./ls"},
	} {
		if allowed, reason, msg := verdict(t, dir, append([]string{"--"}, argv...)...); allowed || reason != "denied-executable" {
			t.Errorf("%q: allowed=%v %s %s", argv, allowed, reason, msg)
		}
	}
	// Without rm denied: the look-alike is not the allowed ls, and a
	// workspace file runs only when allow names its path.
	dir2 := toolsWorkspace(t, "none", runnerAllow, "")
	os.Symlink(rm, filepath.Join(dir2, "ls"))
	for _, argv := range [][]string{{outside + "/ls", "keep.txt"}, {"./ls", "keep.txt"}} {
		if allowed, reason, msg := verdict(t, dir2, append([]string{"--"}, argv...)...); allowed || reason != "not-allowed" {
			t.Errorf("%q: allowed=%v %s %s", argv, allowed, reason, msg)
		}
	}
	r := runAW(t, dir2, nil, "command", "run", "--", outside+"/ls", "keep.txt")
	if r.Code != 1 || r.field(t, ".error.details.reason") != "not-allowed" {
		t.Errorf("a symlink named ls ran: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir2, "keep.txt")); err != nil {
		t.Errorf("keep.txt is gone: %v", err)
	}
	if ls, err := exec.LookPath("ls"); err == nil {
		if allowed, reason, msg := verdict(t, dir2, "--", ls, "-l"); !allowed {
			t.Errorf("the real ls by its path: %s %s", reason, msg)
		}
	}
}

// TestPolicyWorkspacePathDirs: a PATH directory inside the workspace never
// resolves a bare name, in argv mode or through the shell.
func TestPolicyWorkspacePathDirs(t *testing.T) {
	for _, interp := range []string{"none", "sh"} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
		bin := filepath.Join(dir, "bin")
		os.MkdirAll(bin, 0o755)
		os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\necho planted\n"), 0o755)
		cfg := `{"permissionMode": 2, "commands": {"interpreter": "` + interp + `", "allow": ["ls", "env"], "inheritEnv": [], "env": {"PATH": "` + bin + `:./bin:bin:/usr/bin:/bin"}}}`
		os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644)
		r := runAW(t, dir, nil, "command", "run", "--line", "ls")
		if r.Code != 0 || strings.Contains(string(r.Stdout), "planted") {
			t.Errorf("%s: the workspace's bin/ls ran: %s", interp, r.Stdout)
		}
		r = runAW(t, dir, nil, "command", "run", "--", "env")
		out, _ := lookupString(r, ".data.stdoutTail")
		if !strings.Contains(out, "PATH=/usr/bin:/bin\n") || strings.Contains(out, bin) {
			t.Errorf("%s: the spawned PATH keeps workspace directories:\n%s", interp, out)
		}
		if !strings.Contains(out, "GIT_CONFIG_KEY_0=safe.bareRepository") || !strings.Contains(out, "GIT_CONFIG_VALUE_0=explicit") {
			t.Errorf("%s: git may discover bare repositories:\n%s", interp, out)
		}
	}
}

// TestPolicyGitOptions: git's configuration-setting options, programs it
// would run and the repository it reads are checked through the binary.
func TestPolicyGitOptions(t *testing.T) {
	dir := toolsWorkspace(t, "sh", runnerAllow, `"rm"`)
	os.MkdirAll(filepath.Join(dir, "nested", ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "nested", ".git", "config"), []byte("[core]\n\tfsmonitor = ./evil\n"), 0o644)
	for _, d := range []string{"bare/refs", "bare/objects"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "bare", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	cases := []struct{ line, reason string }{
		{"git -c core.pager=id log", "denied-pattern"},
		{"git -c alias.st='!id' st", "denied-pattern"},
		{"git -c core.fsmonitor=./evil status", "denied-pattern"},
		{"git --config-env=core.pager=X log", "denied-pattern"},
		{"git --exec-path=. status", "denied-pattern"},
		{"git clone -c core.hooksPath=x h:r", "denied-pattern"},
		{"git clone --conf=core.sshCommand=id h:r", "denied-pattern"},
		{"git fetch --upload-pa=./evil origin", "denied-pattern"},
		{"git push --rec=./evil origin", "denied-pattern"},
		{"git log --output=/tmp/x", "path-escape"},
		{"git diff --output=.git/config", "path-escape"},
		{"git -C nested status", "nested-command"},
		{"cd nested && git log", "nested-command"},
		{"git -C bare log", "nested-command"},
		{"git --git-dir=bare log", "nested-command"},
		{"git frobnicate", "nested-command"},
		{"git status", ""},
		{"git log --oneline -n 5", ""},
		{"git -c color.ui=always diff --stat", ""},
	}
	for _, tc := range cases {
		allowed, reason, msg := verdict(t, dir, "--line", tc.line)
		if tc.reason == "" && !allowed || tc.reason != "" && (allowed || reason != tc.reason) {
			t.Errorf("%q: allowed=%v %s (%s), want %q", tc.line, allowed, reason, msg, tc.reason)
		}
	}
}

// TestPolicyFindExecFamily: every action of find that runs, writes or
// deletes.
func TestPolicyFindExecFamily(t *testing.T) {
	dir := toolsWorkspace(t, "none", runnerAllow, `"rm"`)
	cases := []struct {
		argv   []string
		reason string
	}{
		{[]string{"find", ".", "-exec", "rm", "{}", ";"}, "denied-executable"},
		{[]string{"find", ".", "-execdir", "rm", "{}", "+"}, "denied-executable"},
		{[]string{"find", ".", "-ok", "rm", "{}", ";"}, "denied-executable"},
		{[]string{"find", ".", "-okdir", "rm", "{}", ";"}, "denied-executable"},
		{[]string{"find", ".", "-exec", "sh", "-c", "rm x", ";"}, "denied-executable"},
		{[]string{"find", ".", "-exec", "perl", "-e", "1", ";"}, "not-allowed"},
		{[]string{"find", ".", "-exec", "ls"}, "nested-command"},
		{[]string{"find", ".", "-fprint", "out"}, "denied-pattern"},
		{[]string{"find", ".", "-fprint0", "out"}, "denied-pattern"},
		{[]string{"find", ".", "-fprintf", "out", "%p"}, "denied-pattern"},
		{[]string{"find", ".", "-fls", "out"}, "denied-pattern"},
		{[]string{"find", ".", "-delete"}, "denied-pattern"},
		{[]string{"find", ".", "-evil"}, "denied-pattern"},
		{[]string{"find", ".", "-name", "*.go", "-exec", "grep", "-l", "x", "{}", "+"}, ""},
		{[]string{"find", ".", "-name", "*.go"}, ""},
	}
	for _, tc := range cases {
		allowed, reason, msg := verdict(t, dir, append([]string{"--"}, tc.argv...)...)
		if tc.reason == "" && !allowed || tc.reason != "" && (allowed || reason != tc.reason) {
			t.Errorf("%q: allowed=%v %s (%s), want %q", tc.argv, allowed, reason, msg, tc.reason)
		}
	}
}

// TestPolicyDotGitSymlink: a .git that is a symlink into the workspace.
// Writes through the .git name stay protected whatever the tool, and git
// there is a runner (its configuration and hooks are agent-writable
// through the target's own name).
func TestPolicyDotGitSymlink(t *testing.T) {
	dir := toolsWorkspace(t, "sh", runnerAllow+`,"sed","tee","cp","dd","truncate"`, `"rm"`)
	os.RemoveAll(filepath.Join(dir, ".git"))
	os.MkdirAll(filepath.Join(dir, "gitdata", "hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, "gitdata", "config"), []byte("[core]\n"), 0o644)
	if err := os.Symlink("gitdata", filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"echo x > .git/config", "sed -i s/core/x/ .git/config", "tee .git/hooks/pre-commit", "cp keep.txt .git/config", "dd of=.git/config", "truncate -s0 .git/config"} {
		r := runAW(t, dir, []byte("x\n"), "command", "run", "--line", line)
		if r.Code != 1 || r.field(t, ".error.details.reason") != "path-escape" || !strings.Contains(r.field(t, ".error.message").(string), "PROTECTED") {
			t.Errorf("%q: %s", line, r.Stdout)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "gitdata", "config")); string(b) != "[core]\n" {
		t.Errorf("gitdata/config changed: %q", b)
	}
	if allowed, reason, msg := verdict(t, dir, "--line", "git status"); allowed || reason != "nested-command" {
		t.Errorf("git with .git -> gitdata: allowed=%v %s %s", allowed, reason, msg)
	}
}
