package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

func realRM(t *testing.T) string {
	p := testenv.Need(t, "rm", "apt-get install coreutils")
	p, _ = filepath.EvalSymlinks(p)
	return p
}

func writeExe(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestResolvedExecutables: allow and deny judge what a name resolves to.
func TestResolvedExecutables(t *testing.T) {
	rm := realRM(t)
	ws := fixture(t)
	ws.Settings.Commands.InheritEnv = []string{"PATH"}
	outside := t.TempDir()
	if err := os.Symlink(rm, filepath.Join(outside, "ls")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rm, filepath.Join(ws.Root, "ls")); err != nil {
		t.Fatal(err)
	}
	writeExe(t, filepath.Join(ws.Root, "scripts", "test.sh"))
	writeExe(t, filepath.Join(ws.Root, "node_modules", ".bin", "tsc"))
	check := func(line, reason string) {
		t.Helper()
		v := Check(ws, Request{Line: line})
		if reason == "" && !v.Allowed || reason != "" && (v.Allowed || v.Reason != reason) {
			t.Errorf("%q: allowed=%v %s (%s), want %q", line, v.Allowed, v.Reason, v.Message, reason)
		}
	}
	check(outside+"/ls x", DeniedExecutable)            // a symlink named ls is rm
	check("./ls x", DeniedExecutable)                   // the same inside the workspace
	check("/usr/bin/../bin/rm x", DeniedExecutable)     // a path-qualified rm
	check(filepath.Dir(rm)+"/./rm x", DeniedExecutable) // and another spelling
	check("env "+outside+"/ls x", DeniedExecutable)     // through a wrapper
	check("timeout 5 ./ls x", DeniedExecutable)         // and another
	check("./scripts/test.sh", NotAllowed)              // a workspace file needs its path in allow
	check("scripts/test.sh", NotAllowed)                //
	check("tsc --noEmit", NotAllowed)                   // node_modules/.bin too
	check("./node_modules/.bin/tsc", NotAllowed)        //
	ws.Settings.Commands.Allow = append(ws.Settings.Commands.Allow, "./scripts/test.sh", "node_modules/.bin/tsc", "tsc")
	check("./scripts/test.sh", "")
	check("scripts/test.sh", "")
	check("tsc --noEmit", "")
	check("./scripts/../scripts/test.sh", "")
	// Without rm denied, a look-alike of an allowed tool is still not it.
	ws.Settings.Commands.Deny = nil
	check(outside+"/ls x", NotAllowed)
	if ls, err := exec.LookPath("ls"); err == nil {
		check(ls+" -l", "") // the real ls by its path
	}
	check("./ls x", NotAllowed) // the workspace file, not named by path in allow
}

// TestWorkspacePathNeverResolves: a PATH entry inside the workspace is
// neither searched by aw nor passed to a spawned shell.
func TestWorkspacePathNeverResolves(t *testing.T) {
	ws := fixture(t)
	bin := filepath.Join(ws.Root, "bin")
	writeExe(t, filepath.Join(bin, "ls"))
	writeExe(t, filepath.Join(bin, "mytool"))
	env := EnvFrom(ws, nil)
	_ = env
	ws.Settings.Commands.Env = map[string]string{"PATH": bin + ":.:sub:/usr/bin:/bin:" + ws.Root + "/sub/../bin"}
	got := EnvFrom(ws, nil)
	path := ""
	for _, kv := range got {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path != "/usr/bin:/bin" {
		t.Errorf("spawned PATH %q, want /usr/bin:/bin", path)
	}
	e := LookPath(ws, "mytool", ws.Root, []string{"PATH=" + bin})
	if e.Path != "" {
		t.Errorf("mytool resolved to %s through a workspace PATH entry", e.Path)
	}
	e = LookPath(ws, "ls", ws.Root, []string{"PATH=" + bin + ":/usr/bin:/bin"})
	if strings.HasPrefix(e.Path, ws.Root) || e.Path == "" {
		t.Errorf("ls resolved to %q", e.Path)
	}
}

// TestGitRepositoryRunner: git reads configuration and hooks from the
// repository it finds; only the root's own (protected) one is trusted.
func TestGitRepositoryRunner(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	mk := func(dirs ...string) {
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(ws.Root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(ws.Root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("nested/.git", "bare/refs", "bare/objects", "plain/deep", "gitfile")
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Root, "sub", "away")); err != nil {
		t.Fatal(err)
	}
	write("bare/HEAD", "ref: refs/heads/main\n")
	write("bare/config", "[core]\n\tfsmonitor = ./evil\n")
	write("gitfile/.git", "gitdir: ../bare\n")
	cases := []struct{ line, reason string }{
		{"git status", ""},
		{"git -C sub status", ""},
		{"cd plain/deep && git log", ""},
		{"git --git-dir=.git status", ""},
		{"git -C nested status", NestedCommand},
		{"cd nested && git status", NestedCommand},
		{"git -C bare log", NestedCommand},
		{"git -C bare/refs log", NestedCommand},
		{"git --git-dir=bare log", NestedCommand},
		{"git --git-dir bare log", NestedCommand},
		{"git -C gitfile status", NestedCommand},
		{"git -C sub -C ../nested status", PathEscape}, // each -C is also checked from the root
		{"git -C sub -C away status", NestedCommand},   // sub/away leads outside
		{"git -C missing status", NestedCommand},
		{"cd sub && git -C ../bare log", PathEscape}, // the line may still be at the root
	}
	for _, tc := range cases {
		v := Check(ws, Request{Line: tc.line})
		if tc.reason == "" && !v.Allowed || tc.reason != "" && (v.Allowed || v.Reason != tc.reason) {
			t.Errorf("%q: allowed=%v %s (%s), want %q", tc.line, v.Allowed, v.Reason, v.Message, tc.reason)
		}
	}
}

// TestGitSymlinkDotGit: a .git that is a symlink into the workspace is
// agent-writable through its target, so git there is a runner, and writes
// through the .git name stay refused whichever tool tries them.
func TestGitSymlinkDotGit(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	ws.Settings.Commands.Allow = append(ws.Settings.Commands.Allow, "truncate", "dd", "ln", "touch")
	if err := os.RemoveAll(filepath.Join(ws.Root, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws.Root, "gitdata", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws.Root, "gitdata", "config"), []byte("[core]\n"), 0o644)
	if err := os.Symlink("gitdata", filepath.Join(ws.Root, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"echo x > .git/config", "sed -i s/a/b/ .git/config", "cp README.md .git/config", "tee .git/hooks/pre-commit",
		"truncate -s0 .git/config", "dd of=.git/config", "ln -s x .git/hooks/post-checkout", "touch .git/hooks/x", "sort -o .git/config README.md",
	} {
		if v := Check(ws, Request{Line: line}); v.Allowed || v.Reason != PathEscape || !strings.Contains(v.Message, "PROTECTED") {
			t.Errorf("%q through a .git symlink: allowed=%v %s %s", line, v.Allowed, v.Reason, v.Message)
		}
	}
	if v := Check(ws, Request{Line: "git status"}); v.Allowed || v.Reason != NestedCommand {
		t.Errorf("git with .git -> gitdata: %+v", v)
	}
}

// TestSecondToolchainOnPath: a path-qualified tool of an allowed name in
// a directory on the command's PATH after the first (a second toolchain a
// human installed) runs; the same file off PATH is a look-alike, refused.
// A PATH entry that is a symlink to the directory counts as it.
func TestSecondToolchainOnPath(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.InheritEnv = []string{"PATH"}
	ws.Settings.Commands.Allow = append(ws.Settings.Commands.Allow, "go")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "toolchain", "bin")
	writeExe(t, filepath.Join(bin, "go"))
	link := filepath.Join(dir, "gobin")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	line := filepath.Join(bin, "go") + " version"
	path := os.Getenv("PATH")
	for _, tc := range []struct {
		path    string
		allowed bool
	}{
		{path, false},
		{path + string(filepath.ListSeparator) + bin, true},
		{path + string(filepath.ListSeparator) + link, true},
	} {
		t.Setenv("PATH", tc.path)
		v := Check(ws, Request{Line: line})
		if tc.allowed {
			wantAllowed(t, line+" with PATH ending "+filepath.Base(tc.path), v)
		} else {
			wantRefused(t, line, v, NotAllowed, "which is not the go on the command's PATH")
		}
	}
}
