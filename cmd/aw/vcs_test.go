package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// The vcs tests build real repositories in temp dirs. The git binary is
// only the oracle: aw itself never runs it.

var gitEnv = []string{"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ALLOW_PROTOCOL=file"}

func needGit(t *testing.T) {
	t.Helper()
	testenv.Git(t)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vcsRepo is a workspace (Auto mode, destructive allowed unless noted) in
// a fresh git repository with one commit.
func vcsRepo(t *testing.T, settings string) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(settings), 0o644)
	write(t, dir, ".git/info/exclude", ".agentic/\n")
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	write(t, dir, "src/lib/util.go", "package lib\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n")
	write(t, dir, "old.txt", "rename me\n")
	write(t, dir, "gone.txt", "delete me\n")
	write(t, dir, "src/.gitignore", "*.tmp\nbuild/\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func awGit(t *testing.T, dir string, args ...string) Result {
	t.Helper()
	return runAWEnv(t, dir, nil, gitEnv, args...)
}

// porcelain renders aw's status files like `git status --porcelain`.
func porcelain(t *testing.T, r Result) string {
	t.Helper()
	var d struct {
		Data struct {
			Files []struct{ Path, Index, Worktree, OrigPath string }
		}
	}
	if err := json.Unmarshal(r.Stdout, &d); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range d.Data.Files {
		b.WriteString(f.Index + f.Worktree + " ")
		if f.OrigPath != "" {
			b.WriteString(f.OrigPath + " -> ")
		}
		b.WriteString(f.Path + "\n")
	}
	return b.String()
}

func TestVCSStatusMatchesGit(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2}`)
	// A submodule (committed), then every state.
	sub := t.TempDir()
	git(t, sub, "init", "-q", "-b", "main")
	write(t, sub, "s.txt", "sub\n")
	git(t, sub, "add", "-A")
	git(t, sub, "commit", "-q", "-m", "sub")
	git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub")
	git(t, dir, "commit", "-q", "-m", "submodule")

	write(t, dir, "a.txt", "one\nTWO\nthree\n")                 // modified
	write(t, dir, "staged.txt", "new\n")                        // staged (added)
	git(t, dir, "add", "staged.txt")                            //
	write(t, dir, "src/lib/util.go", "package lib\n// both\n")  // staged and modified again
	git(t, dir, "add", "src/lib/util.go")                       //
	write(t, dir, "src/lib/util.go", "package lib\n// three\n") //
	git(t, dir, "mv", "old.txt", "new.txt")                     // renamed
	os.Remove(filepath.Join(dir, "gone.txt"))                   // deleted
	write(t, dir, "untracked/deep/u.txt", "u\n")                // untracked, listed one by one
	write(t, dir, "untracked/v.txt", "v\n")                     //
	write(t, dir, "src/x.tmp", "ignored\n")                     // ignored by a nested .gitignore
	write(t, dir, "src/build/out.bin", "ignored dir\n")         //
	write(t, dir, "src/lib/keep.tmp", "ignored deeper\n")       //

	for _, extra := range [][]string{nil, {"--ignored"}} {
		r := awGit(t, dir, append([]string{"vcs", "status"}, extra...)...)
		if r.Code != 0 {
			t.Fatalf("status: %s", r.Stdout)
		}
		want := git(t, dir, append([]string{"status", "--porcelain", "-uall"}, extra...)...)
		if got := porcelain(t, r); got != want {
			t.Errorf("aw vcs status %v:\n%s\ngit status --porcelain -uall:\n%s", extra, got, want)
		}
	}
	// Path filter.
	r := awGit(t, dir, "vcs", "status", "src")
	if got, want := porcelain(t, r), git(t, dir, "status", "--porcelain", "-uall", "--", "src"); got != want {
		t.Errorf("status src:\n%s\nwant:\n%s", got, want)
	}
	// A clean tree is clean.
	clean := vcsRepo(t, `{"permissionMode": 2}`)
	if r := awGit(t, clean, "vcs", "status"); r.field(t, ".data.total") != 0.0 || !strings.Contains(r.field(t, ".summary").(string), "clean") {
		t.Errorf("clean status: %s", r.Stdout)
	}
}

func TestVCSDiffMatchesGit(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2}`)
	var long strings.Builder
	for i := 0; i < 200; i++ {
		long.WriteString("line " + strings.Repeat("x", i%7) + "\n")
	}
	write(t, dir, "long.txt", long.String())
	write(t, dir, "noeol.txt", "a\nb")
	write(t, dir, "bin.dat", "a\x00b")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "more")

	write(t, dir, "a.txt", "zero\none\nTWO\nthree\nfour\n")
	write(t, dir, "src/lib/util.go", "package lib\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int {\n\treturn 2\n}\n\nfunc C() {}\n")
	lines := strings.Split(long.String(), "\n")
	lines[10], lines[100] = "changed ten", "changed hundred"
	lines = append(lines[:150], lines[153:]...)
	write(t, dir, "long.txt", strings.Join(lines, "\n"))
	write(t, dir, "noeol.txt", "a\nc")
	write(t, dir, "bin.dat", "a\x00c")
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.Chmod(filepath.Join(dir, "old.txt"), 0o755)

	r := awGit(t, dir, "vcs", "diff")
	if r.Code != 0 {
		t.Fatalf("diff: %s", r.Stdout)
	}
	if got, want := r.field(t, ".data.diff").(string), git(t, dir, "diff"); got != want {
		t.Errorf("aw vcs diff differs from git diff:\n--- aw\n%s\n--- git\n%s", got, want)
	}
	if r.field(t, ".data.files.0.path") != "a.txt" || r.field(t, ".data.files.0.additions") != 3.0 || r.field(t, ".data.files.0.deletions") != 1.0 {
		t.Errorf("files: %s", r.Stdout)
	}
	// Staged: additions, a rename, a deletion.
	git(t, dir, "add", "-A")
	git(t, dir, "mv", "old.txt", "renamed.txt")
	write(t, dir, "fresh.txt", "fresh\n")
	git(t, dir, "add", "fresh.txt")
	r = awGit(t, dir, "vcs", "diff", "--staged")
	if got, want := r.field(t, ".data.diff").(string), git(t, dir, "diff", "--staged"); got != want {
		t.Errorf("aw vcs diff --staged differs:\n--- aw\n%s\n--- git\n%s", got, want)
	}
	// Path filter and the bound: a tiny maxToolResultChars spills to an artifact.
	r = awGit(t, dir, "vcs", "diff", "--staged", "src")
	if got, want := r.field(t, ".data.diff").(string), git(t, dir, "diff", "--staged", "--", "src"); got != want {
		t.Errorf("diff --staged src:\n%s\nwant:\n%s", got, want)
	}
	write(t, dir, "big.txt", strings.Repeat("a line that makes the diff long\n", 60))
	git(t, dir, "add", "big.txt")
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2, "maxToolResultChars": 1000}`), 0o644)
	r = awGit(t, dir, "vcs", "diff", "--staged")
	if r.field(t, ".data.truncated") != true || r.field(t, ".artifacts.0.path") == nil {
		t.Errorf("bounded diff: %s", r.Stdout)
	}
	art := filepath.Join(dir, r.field(t, ".artifacts.0.path").(string))
	if raw, _ := os.ReadFile(art); string(raw) != git(t, dir, "diff", "--staged") {
		t.Errorf("the artifact is not the whole diff")
	}
}

func TestVCSLogAndShow(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2}`)
	for i, f := range []string{"a.txt", "b.txt", "a.txt", "src/lib/util.go", "a.txt"} {
		write(t, dir, f, strings.Repeat("v", i+1)+"\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "change "+f+" "+strings.Repeat("!", i))
	}
	hashes := func(out string) []string { return strings.Fields(out) }
	r := awGit(t, dir, "vcs", "log", "--limit", "3")
	want := hashes(git(t, dir, "log", "-n", "3", "--format=%H"))
	for i, h := range want {
		if r.field(t, ".data.commits."+itoa(i)+".hash") != h {
			t.Fatalf("log -n 3: %s\nwant %v", r.Stdout, want)
		}
	}
	if r.field(t, ".data.commits.0.author") != "Ada" || r.field(t, ".data.commits.0.email") != "ada@example.com" || r.field(t, ".data.commits.0.subject") != "change a.txt !!!!" || r.field(t, ".data.more") != true {
		t.Errorf("log fields: %s", r.Stdout)
	}
	for _, p := range []string{"a.txt", "src", "b.txt"} {
		r = awGit(t, dir, "vcs", "log", "--", p)
		want := hashes(git(t, dir, "log", "--format=%H", "--", p))
		var got []string
		for _, c := range r.field(t, ".data.commits").([]any) {
			got = append(got, c.(map[string]any)["hash"].(string))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("log -- %s: %v, want %v", p, got, want)
		}
	}
	r = awGit(t, dir, "vcs", "show", "HEAD~1")
	if got, want := r.field(t, ".data.diff").(string), git(t, dir, "show", "--format=", "HEAD~1"); got != want {
		t.Errorf("show diff:\n%s\nwant:\n%s", got, want)
	}
	if r = awGit(t, dir, "vcs", "show", "nope"); r.field(t, ".error.code") != "NOT_FOUND" {
		t.Errorf("show of an unknown rev: %s", r.Stdout)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestVCSAddCommit(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2, "denyPaths": [".env*", "secret*"]}`)
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "newdir/n.txt", "n\n")
	write(t, dir, "secret.txt", "s\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	if r := awGit(t, dir, "vcs", "add", "a.txt", "newdir", "gone.txt"); r.Code != 0 {
		t.Fatalf("add: %s", r.Stdout)
	}
	if got, want := git(t, dir, "diff", "--cached", "--name-status"), "M\ta.txt\nD\tgone.txt\nA\tnewdir/n.txt\n"; got != want {
		t.Fatalf("index after aw add:\n%s\nwant:\n%s", got, want)
	}
	git(t, dir, "fsck", "--no-dangling") // the index and objects aw wrote are valid
	for _, p := range []string{"secret.txt", "../outside", ".git/config"} {
		if r := awGit(t, dir, "vcs", "add", p); r.Code != 1 {
			t.Errorf("add %s: %s", p, r.Stdout)
		}
	}
	write(t, dir, "src/junk.tmp", "x\n")
	if r := awGit(t, dir, "vcs", "add", "src/junk.tmp"); r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("add of an ignored file: %s", r.Stdout)
	}
	r := awGit(t, dir, "vcs", "commit", "-m", "aw commit\n\nbody")
	if r.Code != 0 {
		t.Fatalf("commit: %s", r.Stdout)
	}
	if got := git(t, dir, "log", "-1", "--format=%H %an <%ae> %s"); got != r.field(t, ".data.hash").(string)+" Ada <ada@example.com> aw commit\n" {
		t.Errorf("git log after aw commit: %s", got)
	}
	if got := git(t, dir, "status", "--porcelain"); got != "?? secret.txt\n?? src/junk.tmp\n"[:len("?? secret.txt\n")] {
		t.Errorf("status after commit: %q", got)
	}
	if r := awGit(t, dir, "vcs", "commit", "-m", "again"); r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("empty commit: %s", r.Stdout)
	}
	// No identity anywhere: a clear INVALID_INPUT.
	write(t, dir, "a.txt", "again\n")
	awGit(t, dir, "vcs", "add", "a.txt")
	home := t.TempDir()
	r = runAWEnv(t, dir, nil, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_AUTHOR_NAME=", "GIT_AUTHOR_EMAIL=", "GIT_COMMITTER_NAME=", "GIT_COMMITTER_EMAIL="}, "vcs", "commit", "-m", "x")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "user.email") {
		t.Errorf("commit without identity: %s", r.Stdout)
	}
	// The global config supplies it.
	write(t, home, ".gitconfig", "[user]\n\tname = Global\n\temail = g@example.com\n")
	r = runAWEnv(t, dir, nil, []string{"HOME=" + home, "GIT_AUTHOR_NAME=", "GIT_AUTHOR_EMAIL=", "GIT_COMMITTER_NAME=", "GIT_COMMITTER_EMAIL="}, "vcs", "commit", "-m", "x")
	if r.Code != 0 || r.field(t, ".data.author") != "Global" {
		t.Errorf("commit with a global identity: %s", r.Stdout)
	}
}

func TestVCSBranchCheckout(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2, "allowDestructiveEdits": true}`)
	if r := awGit(t, dir, "vcs", "branch", "topic", "--create"); r.Code != 0 {
		t.Fatalf("branch create: %s", r.Stdout)
	}
	if got := git(t, dir, "branch", "--format=%(refname:short)"); got != "main\ntopic\n" {
		t.Fatalf("branches: %q", got)
	}
	if r := awGit(t, dir, "vcs", "branch"); r.field(t, ".data.branches.1.name") != "topic" || r.field(t, ".data.current") != "main" {
		t.Errorf("branch list: %s", r.Stdout)
	}
	// checkout refuses to clobber uncommitted changes.
	write(t, dir, "a.txt", "dirty\n")
	r := awGit(t, dir, "vcs", "checkout", "topic")
	if r.field(t, ".error.code") != "VCS_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "a.txt") {
		t.Fatalf("checkout over changes: %s", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "dirty\n" {
		t.Fatal("checkout touched the dirty file")
	}
	git(t, dir, "checkout", "--", "a.txt")
	if r := awGit(t, dir, "vcs", "checkout", "topic"); r.Code != 0 {
		t.Fatalf("checkout: %s", r.Stdout)
	}
	if got := git(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "topic\n" {
		t.Fatalf("HEAD after checkout: %s", got)
	}
	if got := git(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("status after checkout: %q", got)
	}
	if r := awGit(t, dir, "vcs", "branch", "topic", "--delete"); r.field(t, ".error.code") != "VCS_ERROR" {
		t.Errorf("deleting the current branch: %s", r.Stdout)
	}
	awGit(t, dir, "vcs", "checkout", "main")
	if r := awGit(t, dir, "vcs", "branch", "topic", "--delete"); r.Code != 0 {
		t.Fatalf("branch delete: %s", r.Stdout)
	}
	if got := git(t, dir, "branch", "--format=%(refname:short)"); got != "main\n" {
		t.Errorf("branches after delete: %q", got)
	}
	// Without allowDestructiveEdits: PROTECTED_PATH naming the alternative.
	strict := vcsRepo(t, `{"permissionMode": 2}`)
	r = awGit(t, strict, "vcs", "checkout", "main")
	if r.field(t, ".error.code") != "PROTECTED_PATH" || !strings.Contains(r.field(t, ".error.message").(string), "branch with create") {
		t.Errorf("checkout without allowDestructiveEdits: %s", r.Stdout)
	}
	awGit(t, strict, "vcs", "branch", "x", "--create")
	if r = awGit(t, strict, "vcs", "branch", "x", "--delete"); r.field(t, ".error.code") != "PROTECTED_PATH" {
		t.Errorf("branch delete without allowDestructiveEdits: %s", r.Stdout)
	}
}

func TestVCSPush(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2, "allowDestructiveEdits": true}`)
	bare := filepath.Join(t.TempDir(), "remote.git")
	git(t, filepath.Dir(bare), "init", "-q", "--bare", "-b", "main", bare)
	git(t, dir, "remote", "add", "origin", bare)
	// aw pushes with no git binary on PATH.
	noGit := append(append([]string{}, gitEnv...), "PATH=/nonexistent")
	push := func(args ...string) Result {
		return runAWEnv(t, dir, nil, noGit, append([]string{"vcs", "push"}, args...)...)
	}
	if r := push(); r.Code != 0 {
		t.Fatalf("push: %s", r.Stdout)
	}
	head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	if got := strings.TrimSpace(git(t, bare, "rev-parse", "main")); got != head {
		t.Fatalf("remote main %s, want %s", got, head)
	}
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "origin/main")); got != head {
		t.Errorf("remote-tracking ref %s, want %s", got, head)
	}
	// Someone else pushes; a local rewrite then force-pushes with a lease
	// that no longer holds: refused, remote unchanged.
	other := filepath.Join(t.TempDir(), "other")
	git(t, filepath.Dir(other), "clone", "-q", bare, other)
	write(t, other, "theirs.txt", "theirs\n")
	git(t, other, "add", "-A")
	git(t, other, "commit", "-q", "-m", "theirs")
	git(t, other, "push", "-q", "origin", "main")
	theirs := strings.TrimSpace(git(t, other, "rev-parse", "HEAD"))
	write(t, dir, "mine.txt", "mine\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--amend", "-m", "rewritten")
	if r := push(); r.field(t, ".error.code") != "VCS_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "non-fast-forward") {
		t.Errorf("non-fast-forward push: %s", r.Stdout)
	}
	r := push("--force")
	if r.field(t, ".error.code") != "VCS_ERROR" || !strings.Contains(r.field(t, ".error.message").(string), "force-with-lease refused") {
		t.Fatalf("force-with-lease over a moved remote: %s", r.Stdout)
	}
	if got := strings.TrimSpace(git(t, bare, "rev-parse", "main")); got != theirs {
		t.Fatalf("the refused push changed the remote: %s", got)
	}
	// After fetching, the lease holds and the forced push goes through.
	git(t, dir, "fetch", "-q", "origin")
	if r := push("--force"); r.Code != 0 || r.field(t, ".data.forced") != true {
		t.Fatalf("force-with-lease after fetch: %s", r.Stdout)
	}
	if got, want := strings.TrimSpace(git(t, bare, "rev-parse", "main")), strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); got != want {
		t.Errorf("remote after forced push %s, want %s", got, want)
	}
	// Without allowDestructiveEdits a forced push is refused up front.
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2}`), 0o644)
	if r := push("--force"); r.field(t, ".error.code") != "PROTECTED_PATH" || !strings.Contains(r.field(t, ".error.message").(string), "force-with-lease") {
		t.Errorf("forced push without allowDestructiveEdits: %s", r.Stdout)
	}
}

func TestVCSGate(t *testing.T) {
	needGit(t)
	dir, human := manualWorkspace(t, "")
	// init in Manual mode is staged; accepted, the resume call creates it.
	r := awGit(t, dir, "vcs", "init", "--branch", "trunk")
	if r.Code != 3 || r.field(t, ".data.approval.kind") != "vcs" || r.field(t, ".data.approval.resume.arguments.action") != "init" {
		t.Fatalf("init in Manual mode: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Fatal("a staged init created .git")
	}
	id := r.field(t, ".data.approval.id").(string)
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	if r = awGit(t, dir, "call", "workspace_vcs", `{"action":"init","branch":"trunk"}`); r.Code != 0 {
		t.Fatalf("resumed init: %s", r.Stdout)
	}
	if got := git(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/trunk\n" {
		t.Errorf("HEAD: %s", got)
	}
	// add is staged too, and a read (status) never is.
	write(t, dir, "f.txt", "f\n")
	if r = awGit(t, dir, "vcs", "add", "f.txt"); r.Code != 3 {
		t.Errorf("add in Manual mode: %s", r.Stdout)
	}
	if got := git(t, dir, "ls-files"); got != "" {
		t.Errorf("a staged add changed the index: %q", got)
	}
	if r = awGit(t, dir, "vcs", "status"); r.Code != 0 {
		t.Errorf("status in Manual mode: %s", r.Stdout)
	}
	// Plan mode without a plan refuses; tier read refuses writes.
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 1}`), 0o644)
	if r = awGit(t, dir, "vcs", "add", "f.txt"); r.field(t, ".error.code") != "APPROVAL_REQUIRED" {
		t.Errorf("add in Plan mode: %s", r.Stdout)
	}
	if r = awGit(t, dir, "--tier", "read", "vcs", "branch", "x", "--create"); r.field(t, ".error.code") != "TOOL_DISABLED" {
		t.Errorf("branch --create at tier read: %s", r.Stdout)
	}
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"vcs": {"enabled": false}}`), 0o644)
	if r = awGit(t, dir, "vcs", "status"); r.field(t, ".error.code") != "TOOL_DISABLED" {
		t.Errorf("vcs.enabled false: %s", r.Stdout)
	}
}

// aw's own state never shows in vcs status: `aw vcs init` adds .agentic/
// to info/exclude as `aw init` does, and a linked worktree reads its main
// repository's info/exclude, as git does.
func TestVCSInitExcludesAgentic(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	write(t, dir, ".agentic/config.json", `{"permissionMode": 2}`)
	write(t, dir, "f.txt", "f\n")
	r := awGit(t, dir, "vcs", "init")
	if r.Code != 0 || r.field(t, ".data.gitExclude") != ".git/info/exclude" {
		t.Fatalf("init: %s", r.Stdout)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude")); !strings.Contains(string(raw), "/.agentic/\n") {
		t.Fatalf("info/exclude: %q", raw)
	}
	noAgentic := func(dir string) {
		t.Helper()
		r := awGit(t, dir, "vcs", "status")
		got := porcelain(t, r)
		if strings.Contains(got, ".agentic") {
			t.Errorf("status in %s lists aw's state:\n%s", dir, got)
		}
		if want := git(t, dir, "status", "--porcelain", "-uall"); got != want {
			t.Errorf("status in %s:\n%s\nwant (git):\n%s", dir, got, want)
		}
	}
	noAgentic(dir)
	git(t, dir, "add", "f.txt")
	git(t, dir, "commit", "-q", "-m", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", wt)
	write(t, wt, ".agentic/config.json", `{"permissionMode": 2}`)
	write(t, wt, "g.txt", "g\n")
	noAgentic(wt)
}

// TestVCSCheckoutNeverWritesProtected: checkout writes files like any tool,
// so it must not rewrite .agentic/config.json (an old commit with a wider
// commands.allow), a protectedPatterns file, or a file outside the
// workspace when the workspace is a sub-directory of the repository.
func TestVCSCheckoutNeverWritesProtected(t *testing.T) {
	const narrow = `{"permissionMode":2,"allowDestructiveEdits":true,"protectedPatterns":["secret.txt"]}`
	for _, tc := range []struct {
		name, rel, code string
		root            string
	}{
		{"settings", ".agentic/config.json", "PROTECTED_PATH", ""},
		{"protectedPatterns", "secret.txt", "PROTECTED_PATH", ""},
		{"outside a sub-directory workspace", "a.txt", "PATH_ESCAPE", "src"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := vcsRepo(t, narrow)
			write(t, dir, tc.rel, `{"permissionMode":2,"commands":{"allow":["sh"]}}`)
			git(t, dir, "add", "-f", tc.rel)
			git(t, dir, "commit", "-q", "-m", "wide")
			want := narrow
			if tc.rel != ".agentic/config.json" {
				want = "changed\n"
			}
			write(t, dir, tc.rel, want)
			git(t, dir, "commit", "-q", "-am", "narrow")
			root := dir
			if tc.root != "" {
				root = filepath.Join(dir, tc.root)
				os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
				os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(narrow), 0o644)
			}
			r := awGit(t, root, "vcs", "checkout", "HEAD~1")
			if r.Env["ok"] != false || r.field(t, ".error.code") != tc.code {
				t.Fatalf("checkout rewrote %s: %s", tc.rel, r.Stdout)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, tc.rel)); string(got) != want {
				t.Errorf("%s is now %q", tc.rel, got)
			}
			if head := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")); head != "narrow" {
				t.Errorf("HEAD moved to %q", head)
			}
		})
	}
}

// TestVCSDiffHidesDeniedAndOutside: diff and show print file contents, so
// they leave out files on denyPaths (a tracked .env) and, when the
// workspace is a sub-directory of the repository, files outside it.
func TestVCSDiffHidesDeniedAndOutside(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode":2}`)
	write(t, dir, ".env", "API_KEY=secret-one\n")
	write(t, dir, "top-secret.txt", "outside-one\n")
	write(t, dir, "src/ok.txt", "visible-one\n")
	git(t, dir, "add", "-f", ".env", "top-secret.txt", "src/ok.txt")
	git(t, dir, "commit", "-q", "-m", "secrets")
	write(t, dir, ".env", "API_KEY=secret-two\n")
	write(t, dir, "top-secret.txt", "outside-two\n")
	write(t, dir, "src/ok.txt", "visible-two\n")
	sub := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(sub, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(sub, ".agentic", "config.json"), []byte(`{"permissionMode":2}`), 0o644)
	for _, tc := range []struct {
		root string
		args []string
		hide []string
		show string
	}{
		{dir, []string{"vcs", "diff"}, []string{"secret-one", "secret-two"}, "visible-two"},
		{dir, []string{"vcs", "show", "HEAD"}, []string{"secret-one"}, "visible-one"},
		{sub, []string{"vcs", "diff"}, []string{"outside-one", "outside-two"}, "visible-two"},
		{sub, []string{"vcs", "show", "HEAD"}, []string{"outside-one", "secret-one"}, "visible-one"},
	} {
		r := awGit(t, tc.root, tc.args...)
		out := string(r.Stdout)
		for _, h := range tc.hide {
			if strings.Contains(out, h) {
				t.Errorf("%v in %s shows %s: %s", tc.args, tc.root, h, out)
			}
		}
		if !strings.Contains(out, tc.show) {
			t.Errorf("%v in %s lost %s: %s", tc.args, tc.root, tc.show, out)
		}
	}
}

// TestVCSBranchNames: a branch name is refused before anything is staged
// when git would refuse it, when it looks like an option, or when it is too
// long to be a file under .git/refs/heads.
func TestVCSBranchNames(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 2}`)
	long := strings.Repeat("b", 201)
	for _, args := range [][]string{
		{"vcs", "branch", long, "--create"},
		{"vcs", "branch", "--create", "--", "-x"},
		{"vcs", "branch", "a..b", "--create"},
		{"vcs", "branch", "a b", "--delete"},
	} {
		wantErr(t, awGit(t, dir, args...), codeInvalid, exitUsage, "branch name")
	}
	wantErr(t, awGit(t, t.TempDir(), "vcs", "init", "--branch", long), codeInvalid, exitUsage, "limit is 200")
	ok := awGit(t, dir, "vcs", "branch", strings.Repeat("b", 200), "--create")
	wantOK(t, ok, exitOK)
}
