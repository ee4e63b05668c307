package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// narrowWS is a workspace whose own policy is strict (Manual, extra
// denyPaths and protectedPatterns) with a sub-directory that carries a
// permissive .agentic/config.json of its own: the config a root narrowed
// to sub would have read before, as if sub were a workspace.
func narrowWS(t *testing.T, mode string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".agentic", "config.json"),
		`{"permissionMode": `+mode+`, "denyPaths": [".env*", "secret*"], "protectedPatterns": ["sub/keep.txt"], "commands": {"allow": ["echo", "touch"], "interpreter": "sh"}}`)
	writeFile(t, filepath.Join(dir, "sub", ".agentic", "config.json"),
		`{"permissionMode": 2, "denyPaths": [], "protectedPatterns": [], "commands": {"allow": ["echo", "touch", "sh", "cat"], "interpreter": "sh"}}`)
	writeFile(t, filepath.Join(dir, "sub", "secret.txt"), "the secret\n")
	writeFile(t, filepath.Join(dir, "sub", "keep.txt"), "keep me\n")
	writeFile(t, filepath.Join(dir, "top.txt"), "top\n")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	writeFile(t, filepath.Join(dir, ".git", "config"), "[core]\n")
	return dir
}

// TestRootNarrowKeepsPolicy: --root sub (and AW_ROOT=sub) inside a
// workspace is --scope sub. The workspace's settings, store, denied and
// protected paths and permission mode still apply; sub's own config is
// not read.
func TestRootNarrowKeepsPolicy(t *testing.T) {
	dir := narrowWS(t, "0")
	for _, how := range []struct {
		name string
		run  func(args ...string) Result
	}{
		{"--root", func(args ...string) Result { return runAW(t, dir, nil, append([]string{"--root", "sub"}, args...)...) }},
		{"AW_ROOT", func(args ...string) Result { return runAWEnv(t, dir, nil, []string{"AW_ROOT=sub"}, args...) }},
		{"absolute --root", func(args ...string) Result {
			return runAW(t, dir, nil, append([]string{"--root", filepath.Join(dir, "sub")}, args...)...)
		}},
	} {
		t.Run(how.name, func(t *testing.T) {
			r := how.run("inspect", "capabilities")
			expect(t, r, 0, "")
			if r.field(t, ".data.permissionLevel") != "manual" || r.field(t, ".data.scope") != "sub" || !strings.HasSuffix(r.field(t, ".data.root").(string), filepath.Base(dir)) {
				t.Fatalf("the narrowed call does not run in the workspace's Manual mode, scoped to sub: %s", r.Stdout)
			}
			expect(t, how.run("inspect", "read", "sub/secret.txt"), 1, "PATH_ESCAPE")
			expect(t, how.run("inspect", "read", "top.txt"), 1, "PATH_ESCAPE") // outside the narrowed directory
			expect(t, how.run("inspect", "read", "secret.txt"), 1, "PATH_ESCAPE")
			r = how.run("inspect", "search", "--fixed", "the secret")
			if strings.Contains(string(r.Stdout), "secret.txt") {
				t.Fatalf("search showed a denied file: %s", r.Stdout)
			}
			expect(t, how.run("edit", "apply", "--op", `{"type":"replace","path":"sub/keep.txt","search":"keep","replacement":"lost"}`), 1, "PROTECTED_PATH")
			expect(t, how.run("edit", "apply", "--op", `{"type":"create","path":"sub/.agentic/x.json","content":"{}"}`), 1, "PROTECTED_PATH")
			// Manual mode: a write and a command are staged, not run.
			r = how.run("edit", "apply", "--op", `{"type":"create","path":"sub/new.txt","content":"x"}`)
			expect(t, r, 3, "")
			r = how.run("command", "run", "--line", "touch made.txt")
			expect(t, r, 3, "")
			id := r.field(t, ".data.approval.id").(string)
			if _, ok := state(t, dir)[id]; !ok {
				t.Fatalf("the approval is not in the workspace's own store")
			}
		})
	}
	for _, p := range []string{"sub/new.txt", "sub/made.txt", "made.txt", "sub/.agentic/approvals", "sub/.agentic/transactions", "sub/.agentic/lock"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s exists: a narrowed call wrote or kept state outside the workspace's .agentic/", p)
		}
	}
	// A symlink inside that leads out is judged by where it leads.
	other := t.TempDir()
	writeFile(t, filepath.Join(other, ".agentic", "config.json"), `{"permissionMode": 2, "denyPaths": []}`)
	if err := os.Symlink(other, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	expect(t, runAW(t, dir, nil, "--root", "out", "inspect", "list"), 1, "PATH_ESCAPE")
	expect(t, runAWEnv(t, dir, nil, []string{"AW_ROOT=out/."}, "inspect", "list"), 1, "PATH_ESCAPE")
	// --scope must stay inside what --root narrowed to.
	expect(t, runAW(t, dir, nil, "--root", "sub", "--scope", ".", "inspect", "list"), 1, "PATH_ESCAPE")
	os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755)
	r := runAW(t, dir, nil, "--root", "sub", "--scope", "sub/deeper", "inspect", "capabilities")
	if r.Code != 0 || r.field(t, ".data.scope") != "sub/deeper" {
		t.Fatalf("--scope inside --root: %s", r.Stdout)
	}
}

// TestRootNarrowFromSubdirectory: started inside src (the workspace is
// still discovered above it), --root . keeps the workspace's policy.
func TestRootNarrowFromSubdirectory(t *testing.T) {
	dir := narrowWS(t, "1")
	src := filepath.Join(dir, "src")
	writeFile(t, filepath.Join(src, "secret.go"), "package x\n")
	r := runAW(t, src, nil, "--root", ".", "inspect", "capabilities")
	if r.Code != 0 || r.field(t, ".data.permissionLevel") != "plan" || r.field(t, ".data.scope") != "src" {
		t.Fatalf("--root . from src: %s", r.Stdout)
	}
	expect(t, runAW(t, src, nil, "--root", ".", "command", "run", "--line", "echo hi"), 1, "APPROVAL_REQUIRED")
	expect(t, runAW(t, src, nil, "--root", ".", "inspect", "read", "src/secret.go"), 1, "PATH_ESCAPE")
	expect(t, runAW(t, src, nil, "--root", "..", "inspect", "read", "sub/secret.txt"), 1, "PATH_ESCAPE")
	expect(t, runAW(t, src, nil, "--root", "../..", "inspect", "list"), 1, "PATH_ESCAPE")
}

// TestRootNarrowProtectedDirs: --root .agentic, .git (and through a
// symlink to them) never make protected content writable and never
// create a nested store.
func TestRootNarrowProtectedDirs(t *testing.T) {
	dir := narrowWS(t, "2") // Auto: nothing stops a write but the protections
	if err := os.Symlink(".agentic", filepath.Join(dir, "state-link")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	for _, root := range []string{".agentic", ".git", "state-link", ".agentic/../.git", "sub/.agentic"} {
		t.Run(strings.ReplaceAll(root, "/", "_"), func(t *testing.T) {
			run := func(args ...string) Result { return runAW(t, dir, nil, append([]string{"--root", root}, args...)...) }
			real := filepath.Clean(root)
			if root == "state-link" {
				real = ".agentic"
			}
			r := run("inspect", "capabilities")
			if r.Code != 0 || r.field(t, ".data.permissionLevel") != "auto" || r.field(t, ".data.scope") != real {
				t.Fatalf("capabilities: %s", r.Stdout)
			}
			for _, op := range []string{
				`{"type":"create","path":"` + real + `/config.json","content":"{\"permissionMode\":2}","overwrite":true}`,
				`{"type":"create","path":"` + real + `/x.txt","content":"x"}`,
				`{"type":"mkdir","path":"` + real + `/.agentic"}`,
				`{"type":"create","path":"` + real + `/.agentic/config.json","content":"{}"}`,
			} {
				expect(t, run("edit", "apply", "--op", op), 1, "PROTECTED_PATH")
			}
			// A path relative to what was named is still relative to the
			// workspace root, and so outside the narrowed directory.
			expect(t, run("edit", "apply", "--op", `{"type":"create","path":"config.json","content":"{}"}`), 1, "PATH_ESCAPE")
			// A command runs in the narrowed directory; its write there is
			// a write to a protected path.
			r = run("command", "run", "--line", "echo x > x.txt")
			if r.Code == 0 {
				t.Fatalf("a command wrote inside %s: %s", root, r.Stdout)
			}
			run("notes", "write", "n1", "--content", "a note")
		})
	}
	after, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
	if string(after) != string(before) {
		t.Fatalf("the workspace config changed: %s", after)
	}
	for _, p := range []string{".agentic/.agentic", ".git/.agentic", ".agentic/x.txt", ".git/x.txt", "sub/.agentic/x.txt", "sub/.agentic/.agentic", ".agentic/config.json/x"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

// TestRootNarrowUserFilesInsideWorkspace: a user config or approver token
// anywhere inside the discovered workspace is ignored with a warning,
// whatever --root narrowed the call to (before, narrowing to sub made a
// config in the workspace's cfg/ directory look like one outside).
func TestRootNarrowUserFilesInsideWorkspace(t *testing.T) {
	dir := narrowWS(t, "0")
	cfg := filepath.Join(dir, "cfg")
	os.MkdirAll(filepath.Join(cfg, "aw"), 0o700)
	if err := os.WriteFile(filepath.Join(cfg, "aw", "config.json"), []byte(`{"permissionMode": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "aw", "approver.token"), []byte("tok-planted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + cfg, "AW_APPROVER_TOKEN=tok-planted"}
	for _, root := range []string{"", "sub", "cfg", "cfg/aw"} {
		args := []string{"inspect", "capabilities"}
		if root != "" {
			args = append([]string{"--root", root}, args...)
		}
		r := runAWEnv(t, dir, nil, env, args...)
		expect(t, r, 0, "")
		warnings, _ := r.field(t, ".data.warnings").([]any)
		if r.field(t, ".data.permissionLevel") != "manual" || len(warnings) != 1 ||
			!strings.Contains(warnings[0].(string), "ignoring user config") || !strings.Contains(warnings[0].(string), "inside the workspace") {
			t.Fatalf("--root %q: the planted user config was not ignored with a warning: %s", root, r.Stdout)
		}
		if !strings.Contains(strings.Join(factsOf(t, r), "\n"), "warning: ignoring user config") {
			t.Fatalf("--root %q: the warning is not a fact: %s", root, r.Stdout)
		}
	}
	id := stage(t, dir, "command", "run planted", "echo planted")
	for _, root := range []string{"sub", "cfg/aw", "."} {
		r := runAWEnv(t, dir, nil, env, "--root", root, "approval", "accept", id)
		expect(t, r, 1, "HUMAN_REQUIRED")
		if msg := r.field(t, ".error.message").(string); !strings.Contains(msg, "the token file is ignored because it lies inside the workspace") {
			t.Fatalf("--root %s: %s", root, msg)
		}
	}
	// A hard link outside the workspace to the planted token is no better.
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "aw"), 0o700)
	if err := os.Link(filepath.Join(cfg, "aw", "approver.token"), filepath.Join(outside, "aw", "approver.token")); err != nil {
		testenv.Missing(t, fmt.Sprintf("hard links (%v)", err), "run the tests with TMPDIR on a file system with hard links")
	}
	r := runAWEnv(t, dir, nil, []string{"XDG_CONFIG_HOME=" + outside, "AW_APPROVER_TOKEN=tok-planted"}, "--root", "sub", "approval", "accept", id)
	expect(t, r, 1, "HUMAN_REQUIRED")
	if msg := r.field(t, ".error.message").(string); !strings.Contains(msg, "hard links") {
		t.Fatalf("hard-linked token: %s", msg)
	}
	if st := state(t, dir); st[id].Status != "pending" {
		t.Fatalf("a planted token decided %s", st[id].Status)
	}
}

// TestRootOutsideAnyWorkspace: started where no workspace is (no .agentic
// or .git above the working directory), --root names the workspace as if
// aw had been started there, still only inside the working directory.
func TestRootOutsideAnyWorkspace(t *testing.T) {
	parent := t.TempDir()
	dir := narrowWS(t, "0")
	proj := filepath.Join(parent, "proj")
	if err := os.Rename(dir, proj); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(proj, "docs"), 0o755)
	r := runAW(t, parent, nil, "--root", "proj/docs", "inspect", "capabilities")
	if r.Code != 0 || r.field(t, ".data.permissionLevel") != "manual" || r.field(t, ".data.scope") != "docs" ||
		!strings.HasSuffix(r.field(t, ".data.root").(string), "proj") {
		t.Fatalf("--root proj/docs from outside any workspace: %s", r.Stdout)
	}
	// As if started in proj/sub: its own .agentic/ is the nearest.
	r = runAW(t, parent, nil, "--root", "proj/sub", "inspect", "capabilities")
	if r.Code != 0 || r.field(t, ".data.permissionLevel") != "auto" || !strings.HasSuffix(r.field(t, ".data.root").(string), "sub") {
		t.Fatalf("--root proj/sub from outside any workspace: %s", r.Stdout)
	}
	r = runAW(t, parent, nil, "--root", "proj", "inspect", "read", "top.txt")
	expect(t, r, 0, "")
	if _, err := os.Stat(filepath.Join(parent, ".agentic")); err == nil {
		t.Fatal("a store was created in the working directory")
	}
}

func factsOf(t *testing.T, r Result) []string {
	t.Helper()
	var out []string
	facts, _ := r.field(t, ".retention.facts").([]any)
	for _, f := range facts {
		out = append(out, f.(string))
	}
	return out
}
