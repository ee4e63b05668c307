package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// gitTree is a fixture workspace with the given directories and files
// (content after the path, "" for a directory), checked in interpreter sh.
func gitTree(t *testing.T, entries map[string]string) func(line string) Verdict {
	t.Helper()
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	for p, content := range entries {
		full := filepath.Join(ws.Root, p)
		if content == "" {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(line string) Verdict { return Check(ws, Request{Line: line}) }
}

// A directory is a bare repository to git with HEAD and either objects/
// or refs/; HEAD alone is an ordinary directory.
func TestBareRepositoryShapes(t *testing.T) {
	check := gitTree(t, map[string]string{
		"objonly/HEAD": "ref: refs/heads/main\n", "objonly/objects": "",
		"refsonly/HEAD": "ref: refs/heads/main\n", "refsonly/refs": "",
		"headonly/HEAD": "ref: refs/heads/main\n",
	})
	wantRefused(t, "objonly", check("git -C objonly log"), NestedCommand, "the bare repository objonly")
	wantRefused(t, "refsonly", check("git -C refsonly log"), NestedCommand, "the bare repository refsonly")
	wantAllowed(t, "git -C headonly log", check("git -C headonly log"))
}

// A submodule's .git file pointing under the root's own .git/modules is
// the root's repository; a nested repository is named, root-relative,
// with the directory git runs in.
func TestSubmoduleAndNestedRepositories(t *testing.T) {
	check := gitTree(t, map[string]string{
		"mod/.git": "gitdir: ../.git/modules/mod\n", ".git/modules/mod/HEAD": "ref: refs/heads/main\n", ".git/modules/mod/refs": "",
		"sub/nested/.git/HEAD": "ref: refs/heads/main\n",
		"out/.git":             "gitdir: ../sub/nested/.git\n",
	})
	for _, line := range []string{"git -C mod status", "cd mod && git log"} {
		wantAllowed(t, line, check(line))
	}
	wantRefused(t, "sub/nested", check("git -C sub/nested status"), NestedCommand, "git run in sub/nested would use the repository sub/nested/.git,")
	wantRefused(t, "out", check("git -C out status"), NestedCommand, "git run in out would use the repository sub/nested/.git,")
}

// Options before a subcommand's action are read with the subcommand's own
// table (an unknown one is refused); a missing operand is not a path.
func TestGitActionsAndOperands(t *testing.T) {
	check := gitTree(t, nil)
	for _, line := range []string{"git remote --frobnicate add origin https://example.com/r", "git worktree --bogus add x"} {
		wantRefused(t, line, check(line), DeniedPattern, "does not know the option")
	}
	for _, line := range []string{"git remote -v add origin https://example.com/r", "git clone", "git worktree add", "git config get user.name", "git config --get user.name"} {
		wantAllowed(t, line, check(line))
	}
	// git mv writes its last operand when it has a source too; alone, the
	// operand is no destination (git stops with its usage and writes nothing).
	for _, line := range []string{"git mv README.md", "git mv ../x"} {
		wantAllowed(t, line, check(line))
	}
	for _, line := range []string{"git config", "git config user.name x", "git config set user.name x"} {
		wantRefused(t, line, check(line), DeniedPattern, "it changes git configuration")
	}
	for _, line := range []string{"git mv README.md ../x", "git clone https://example.com/r ../x", "git worktree add ../x", "git remote add origin :/../../etc"} {
		wantRefused(t, line, check(line), PathEscape, "leaves the workspace")
	}
}

// Overlay lines take every name git gives the same option; generated
// lines no overlay line owns are kept once, with the names not yet taken.
func TestMergeGitOptions(t *testing.T) {
	for _, tc := range []struct{ generated, overlay, want string }{
		{"-u|--upload-pack=X\n-q|--quiet\n-v", "--upload-pack=PROG  run  it names", "--upload-pack|-u=PROG run it names\n-q|--quiet\n-v\n"},
		{"-o|--output=X\n-q|--quiet\n-q", "--output=FILE  write\n-w|--web  run  x", "--output|-o=FILE write\n-w|--web  run  x\n-q|--quiet\n"},
		{"-w|--web\n-n", "--web  run  x", "--web|-w run x\n-n\n"},
	} {
		got, err := mergeGitOptions(tc.generated, tc.overlay)
		if err != nil || got != tc.want {
			t.Errorf("mergeGitOptions(%q, %q) = %q, %v; want %q", tc.generated, tc.overlay, got, err, tc.want)
		}
	}
}

// LookPath: node_modules/.bin is searched from the working directory up
// to the root; a file reached through a symlinked directory that leads
// outside is not a workspace file; a PATH entry that is a symlink into
// the workspace is never searched.
func TestLookPathDirectories(t *testing.T) {
	ws := fixture(t)
	outside := t.TempDir()
	writeExe(t, filepath.Join(ws.Root, "node_modules", ".bin", "tsc"))
	writeExe(t, filepath.Join(outside, "tool"))
	writeExe(t, filepath.Join(ws.Root, "bin", "planted"))
	if err := os.Symlink(outside, filepath.Join(ws.Root, "away")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws.Root, "bin"), filepath.Join(outside, "wsbin")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "sub", "sub/deeper"} {
		e := LookPath(ws, "tsc", filepath.Join(ws.Root, dir), nil)
		if e.Workspace != "node_modules/.bin/tsc" {
			t.Errorf("tsc from %q: %+v", dir, e)
		}
	}
	if e := LookPath(ws, "./away/tool", ws.Root, nil); e.Workspace != "" || e.Target != filepath.Join(outside, "tool") {
		t.Errorf("./away/tool: %+v (want a file outside the workspace)", e)
	}
	if e := LookPath(ws, "./bin/planted", ws.Root, nil); e.Workspace != "bin/planted" {
		t.Errorf("./bin/planted: %+v", e)
	}
	if e := LookPath(ws, "./nothing/here", ws.Root, nil); e.Workspace != "nothing/here" {
		t.Errorf("./nothing/here: %+v (want the workspace path it names)", e)
	}
	if e := LookPath(ws, "planted", ws.Root, []string{"PATH=" + filepath.Join(outside, "wsbin")}); e.Path != "" {
		t.Errorf("planted through a PATH symlink into the workspace: %+v", e)
	}
	if e := LookPath(ws, "tool", ws.Root, []string{"PATH=" + outside}); e.Path != filepath.Join(outside, "tool") {
		t.Errorf("tool on PATH: %+v", e)
	}
}
