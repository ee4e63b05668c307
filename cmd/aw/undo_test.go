package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// undoWorkspace allows the shell tools the undo tests' commands use, in
// Auto mode with the sh interpreter. extra is spliced into "commands".
func undoWorkspace(t *testing.T, extra string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	cfg := fmt.Sprintf(`{"permissionMode": 2, "commands": {"interpreter": "sh", "allow": ["sh","printf","echo","rm","mv","chmod","ln","mkdir","sleep","true","cat","touch","mkfifo","rmdir","cp"]%s}}`, extra)
	writeConfig(t, dir, cfg)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runLine runs one sh line as a job and returns its envelope.
func runLine(t *testing.T, dir, line string) Result {
	t.Helper()
	r := runAW(t, dir, nil, "command", "run", "--line", line)
	mustOK(t, r, "command run "+line)
	if r.field(t, ".data.exitCode") != float64(0) {
		t.Fatalf("%s exited %v: %s", line, r.field(t, ".data.exitCode"), r.Stdout)
	}
	return r
}

// changed is a run's data.changes.paths as "change path" lines.
func changed(t *testing.T, r Result) []string {
	t.Helper()
	var out []string
	for _, p := range r.field(t, ".data.changes.paths").([]any) {
		m := p.(map[string]any)
		out = append(out, fmt.Sprint(m["change"], " ", m["path"]))
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// A command that creates, truncates in place, replaces by rename, deletes,
// chmods and makes a symlink: its changes are recorded, diff shows them,
// and undo (a planned transaction, then edit commit) puts every file back
// byte for byte with its mode and removes what it created.
func TestCommandUndoRestoresWhatAJobChanged(t *testing.T) {
	bin := "bin\x00ary\r\nline two\r\n"
	dir := undoWorkspace(t, "", map[string]string{
		"keep.txt": "untouched\n", "trunc.txt": "old content\n", "renamed.txt": "before rename\n",
		"gone.txt": "deleted by the job\n", "tool.sh": "#!/bin/sh\n", "blob.bin": bin,
	})
	r := runLine(t, dir, `printf 'new\n' > trunc.txt; printf 'replaced\n' > tmp.txt; mv tmp.txt renamed.txt; rm gone.txt; chmod 755 tool.sh; printf 'x' >> blob.bin; mkdir -p made/deep; printf 'made\n' > made/deep/new.txt; ln -s keep.txt link`)
	want := []string{"modified blob.bin", "deleted gone.txt", "created link", "created made", "created made/deep", "created made/deep/new.txt", "modified renamed.txt", "modified tool.sh", "modified trunc.txt"}
	if got := changed(t, r); !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	if r.field(t, ".data.changes.created") != float64(4) || r.field(t, ".data.changes.modified") != float64(4) || r.field(t, ".data.changes.deleted") != float64(1) {
		t.Errorf("counts: %v", r.field(t, ".data.changes"))
	}
	job := r.field(t, ".data.jobId").(string)
	if st := runAW(t, dir, nil, "command", "status", job); st.field(t, ".data.changes.record") == nil {
		t.Errorf("status has no changes: %s", st.Stdout)
	}
	ch := runAW(t, dir, nil, "inspect", "changes")
	if jobs := ch.field(t, ".data.jobs").([]any); len(jobs) != 1 || jobs[0].(map[string]any)["changedCount"] != float64(9) {
		t.Errorf("inspect changes jobs: %v", jobs)
	}

	d := runAW(t, dir, nil, "command", "diff", job[:12])
	mustOK(t, d, "command diff")
	diff := d.field(t, ".data.diff").(string)
	for _, s := range []string{"-old content\n+new\n", "--- a/gone.txt\n+++ /dev/null", "+made\n", "-before rename\n+replaced\n", "Binary files a/blob.bin and b/blob.bin differ", "symlink to keep.txt", "mode 644 -> 755"} {
		if !strings.Contains(diff, s) {
			t.Errorf("diff lacks %q:\n%s", s, diff)
		}
	}

	u := runAW(t, dir, nil, "command", "undo", job)
	mustOK(t, u, "command undo")
	tx := u.field(t, ".data.transactionId").(string)
	if u.field(t, ".data.status") != "planned" || u.field(t, ".data.destructive") != false {
		t.Fatalf("undo: %s", u.Stdout)
	}
	if readFile(t, filepath.Join(dir, "trunc.txt")) != "new\n" {
		t.Fatal("undo wrote before its commit")
	}
	mustOK(t, runAW(t, dir, nil, "edit", "commit", tx), "edit commit")
	for name, content := range map[string]string{"keep.txt": "untouched\n", "trunc.txt": "old content\n", "renamed.txt": "before rename\n", "gone.txt": "deleted by the job\n", "tool.sh": "#!/bin/sh\n", "blob.bin": bin} {
		if got := readFile(t, filepath.Join(dir, name)); got != content {
			t.Errorf("%s is %q after undo, want %q", name, got, content)
		}
		if m := modeOf(t, filepath.Join(dir, name)); m != 0o644 {
			t.Errorf("%s has mode %v after undo", name, m)
		}
	}
	if exists(filepath.Join(dir, "made")) {
		t.Error("the directories the job created (empty after the undo) are still there")
	}
	if exists(filepath.Join(dir, "link")) {
		t.Error("the symlink the job created is still there")
	}
	// The undo is a transaction like any other: its rollback redoes the job.
	mustOK(t, runAW(t, dir, nil, "edit", "rollback", tx), "edit rollback")
	if readFile(t, filepath.Join(dir, "trunc.txt")) != "new\n" || modeOf(t, filepath.Join(dir, "tool.sh")) != 0o755 || exists(filepath.Join(dir, "gone.txt")) || !exists(filepath.Join(dir, "made", "deep", "new.txt")) {
		t.Error("rolling back the undo did not put the job's changes back")
	}
}

// A path changed again after the job is left alone and named; force
// restores it too, and is destructive: refused without
// allowDestructiveEdits, committed with it.
func TestCommandUndoLeavesLaterChangesAlone(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a0\n", "b.txt": "b0\n"})
	job := runLine(t, dir, `printf 'a1\n' > a.txt; printf 'b1\n' > b.txt`).field(t, ".data.jobId").(string)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a2 by the human\n"), 0o644)

	u := runAW(t, dir, nil, "command", "undo", job)
	mustOK(t, u, "undo")
	left := u.field(t, ".data.leftAlone").([]any)
	if len(left) != 1 || left[0].(map[string]any)["path"] != "a.txt" || !strings.Contains(fmt.Sprint(left[0]), "changed since the job") {
		t.Fatalf("leftAlone %v", left)
	}
	if !strings.Contains(fmt.Sprint(u.field(t, ".retention.facts")), "a.txt") {
		t.Errorf("facts do not name a.txt: %v", u.field(t, ".retention.facts"))
	}
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit")
	if readFile(t, filepath.Join(dir, "a.txt")) != "a2 by the human\n" || readFile(t, filepath.Join(dir, "b.txt")) != "b0\n" {
		t.Fatalf("a=%q b=%q", readFile(t, filepath.Join(dir, "a.txt")), readFile(t, filepath.Join(dir, "b.txt")))
	}

	// Now only a.txt is left; without force there is nothing to undo.
	none := runAW(t, dir, nil, "command", "undo", job)
	if none.Code != 2 || none.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(none.field(t, ".error.message").(string), "pass force") {
		t.Fatalf("undo with only a later change left: %s", none.Stdout)
	}
	f := runAW(t, dir, nil, "command", "undo", job, "--force")
	mustOK(t, f, "undo --force")
	if f.field(t, ".data.destructive") != true {
		t.Fatalf("forced undo is not destructive: %s", f.Stdout)
	}
	tx := f.field(t, ".data.transactionId").(string)
	refused := runAW(t, dir, nil, "edit", "commit", tx)
	if refused.field(t, ".error.code") != "PROTECTED_PATH" {
		t.Fatalf("destructive undo committed without allowDestructiveEdits: %s", refused.Stdout)
	}
	writeConfig(t, dir, `{"permissionMode": 2, "allowDestructiveEdits": true, "commands": {"interpreter": "sh", "allow": ["printf"]}}`)
	mustOK(t, runAW(t, dir, nil, "edit", "commit", tx), "forced commit")
	if readFile(t, filepath.Join(dir, "a.txt")) != "a0\n" {
		t.Fatalf("a.txt after forced undo: %q", readFile(t, filepath.Join(dir, "a.txt")))
	}
}

// An undo planned, then a file changed before its commit: the whole
// transaction is refused as stale (nothing half-restored).
func TestCommandUndoStaleAtCommit(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a0\n", "b.txt": "b0\n"})
	job := runLine(t, dir, `printf 'a1\n' > a.txt; printf 'b1\n' > b.txt`).field(t, ".data.jobId").(string)
	tx := runAW(t, dir, nil, "command", "undo", job).field(t, ".data.transactionId").(string)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b2\n"), 0o644)
	r := runAW(t, dir, nil, "edit", "commit", tx)
	if r.field(t, ".error.code") != "EDIT_CONFLICT" || r.field(t, ".error.details.reason") != "stale" {
		t.Fatalf("stale undo: %s", r.Stdout)
	}
	if readFile(t, filepath.Join(dir, "a.txt")) != "a1\n" {
		t.Fatal("a stale undo restored a.txt")
	}
}

// What the snapshot no longer holds is explained, never restored wrong.
func TestCommandUndoPrunedContent(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a0\n"})
	job := runLine(t, dir, `printf 'a1\n' > a.txt`).field(t, ".data.jobId").(string)
	os.RemoveAll(filepath.Join(dir, ".agentic", "snapshots", "blobs"))
	r := runAW(t, dir, nil, "command", "undo", job)
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "pruned from the snapshot store") {
		t.Fatalf("undo of pruned content: %s", r.Stdout)
	}
	d := runAW(t, dir, nil, "command", "diff", job)
	if !strings.Contains(d.field(t, ".data.diff").(string), "content not shown: its content was pruned") {
		t.Errorf("diff of pruned content: %s", d.Stdout)
	}
	// A job from before snapshots (no record) and an unknown job.
	if r := runAW(t, dir, nil, "command", "undo", "job_nope"); r.field(t, ".error.code") != "NOT_FOUND" {
		t.Errorf("unknown job: %s", r.Stdout)
	}
}

// A background job's effects are recorded by its supervisor when it ends,
// with no aw call waiting.
func TestCommandUndoBackgroundJob(t *testing.T) {
	dir := undoWorkspace(t, "", nil)
	r := runAW(t, dir, nil, "command", "start", "--line", "sleep 0.5; printf 'bg\\n' > bg.txt")
	mustOK(t, r, "start")
	job := r.field(t, ".data.jobId").(string)
	deadline := time.Now().Add(30 * time.Second)
	var rec map[string]any
	for time.Now().Before(deadline) {
		rec = jobRecord(t, dir, job)
		if rec["status"] != "running" && rec["status"] != "starting" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	c, _ := rec["changes"].(map[string]any)
	if c == nil || c["created"] != float64(1) {
		t.Fatalf("background job record: %v", rec)
	}
	u := runAW(t, dir, nil, "command", "undo", job)
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit")
	if exists(filepath.Join(dir, "bg.txt")) {
		t.Error("bg.txt survived the undo")
	}
}

// Ignored paths (list.ignore, .gitignore, .agentic) are not snapshotted,
// and an aw edit committed while a job runs is the transaction's, not the
// job's.
func TestCommandSnapshotScope(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{".gitignore": "build/\n", "node_modules/x.js": "x\n", "build/out": "o\n", "e.txt": "e0\n"})
	r := runAW(t, dir, nil, "command", "start", "--line", "printf y > node_modules/x.js; printf p > build/out; sleep 1.5; printf j > j.txt")
	mustOK(t, r, "start")
	job := r.field(t, ".data.jobId").(string)
	time.Sleep(300 * time.Millisecond)
	op := `{"type":"replace","path":"e.txt","search":"e0","replacement":"e1"}`
	mustOK(t, runAW(t, dir, nil, "edit", "apply", "--op", op), "edit apply")
	w := runAW(t, dir, nil, "command", "wait", job, "--timeout", "30")
	if got := changed(t, w); !slices.Equal(got, []string{"created j.txt"}) {
		t.Fatalf("changes %v, want only j.txt", got)
	}
	raw := readFile(t, filepath.Join(dir, ".agentic", "jobs", job, "changes.json"))
	if !strings.Contains(raw, `"attributed": [`) || !strings.Contains(raw, `"e.txt"`) {
		t.Errorf("e.txt not attributed to its transaction: %s", raw)
	}
	blobs := 0
	filepath.WalkDir(filepath.Join(dir, ".agentic", "snapshots", "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			blobs++
			if b, _ := os.ReadFile(p); string(b) == "x\n" || string(b) == "o\n" {
				t.Errorf("an ignored file was snapshotted: %s", b)
			}
		}
		return nil
	})
	if blobs == 0 {
		t.Error("no blobs at all")
	}
}

// Over the caps a job records what it can and says so; off records
// nothing and says why.
func TestCommandSnapshotCaps(t *testing.T) {
	files := map[string]string{"big.txt": strings.Repeat("b", 100), "small.txt": "s\n"}
	dir := undoWorkspace(t, `, "snapshotMaxFileBytes": 10`, files)
	r := runLine(t, dir, `printf 'x' >> big.txt; printf 'y' >> small.txt`)
	if r.field(t, ".data.changes.unrestorable") != float64(1) {
		t.Errorf("unrestorable: %s", r.Stdout)
	}
	u := runAW(t, dir, nil, "command", "undo", r.field(t, ".data.jobId").(string))
	nr := u.field(t, ".data.notRestorable").([]any)
	if len(nr) != 1 || nr[0].(map[string]any)["path"] != "big.txt" || !strings.Contains(fmt.Sprint(nr[0]), "not kept") {
		t.Errorf("notRestorable %v", nr)
	}

	many := undoWorkspace(t, `, "snapshotMaxFiles": 3`, map[string]string{"1": "", "2": "", "3": "", "4": ""})
	r = runLine(t, many, "true")
	if r.field(t, ".data.changes.recorded") != false || !strings.Contains(r.field(t, ".data.changes.reason").(string), "commands.snapshotMaxFiles") {
		t.Errorf("over snapshotMaxFiles: %v", r.field(t, ".data.changes"))
	}
	u = runAW(t, many, nil, "command", "undo", r.field(t, ".data.jobId").(string))
	if u.field(t, ".error.code") != "NOT_FOUND" || !strings.Contains(u.field(t, ".error.message").(string), "snapshotMaxFiles") {
		t.Errorf("undo over the caps: %s", u.Stdout)
	}

	off := undoWorkspace(t, `, "snapshot": "off"`, nil)
	r = runLine(t, off, "printf z > z.txt")
	if r.field(t, ".data.changes.recorded") != false || !strings.Contains(r.field(t, ".data.changes.reason").(string), "off") {
		t.Errorf("snapshot off: %v", r.field(t, ".data.changes"))
	}
	if exists(filepath.Join(off, ".agentic", "snapshots")) {
		t.Error("snapshot off still wrote a store")
	}
}

// A kill -9 in the middle of a snapshot leaves a usable store, and a
// damaged manifest is never trusted: the next job records its changes
// exactly.
func TestCommandSnapshotSurvivesKill(t *testing.T) {
	files := map[string]string{"a.txt": "a0\n"}
	for i := 0; i < 3000; i++ {
		files[fmt.Sprintf("d%d/f%d.txt", i%30, i)] = fmt.Sprintf("file %d\n", i)
	}
	dir := undoWorkspace(t, "", files)
	for round := 0; round < 5; round++ {
		cmd := exec.Command(awBin, "command", "run", "--line", "true")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=")
		cmd.Stdout, cmd.Stderr = new(bytes.Buffer), new(bytes.Buffer)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+round*30) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	manifest := filepath.Join(dir, ".agentic", "snapshots", "manifest")
	if b, err := os.ReadFile(manifest); err == nil && len(b) > 100 {
		b[len(b)/2] ^= 0xff // damaged: must be ignored, not trusted
		os.WriteFile(manifest, b, 0o644)
	}
	r := runLine(t, dir, "printf 'a1\\n' > a.txt; printf n > d3/new.txt")
	if got := changed(t, r); !slices.Equal(got, []string{"modified a.txt", "created d3/new.txt"}) {
		t.Fatalf("after kills: changes %v", got)
	}
	u := runAW(t, dir, nil, "command", "undo", r.field(t, ".data.jobId").(string))
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit")
	if readFile(t, filepath.Join(dir, "a.txt")) != "a0\n" {
		t.Error("a.txt not restored after the kills")
	}
	// An unchanged tree records no change (the stat reuse is exact).
	if got := changed(t, runLine(t, dir, "true")); len(got) != 0 {
		t.Errorf("true changed %v", got)
	}
}

// aw gc removes the blobs nothing names any more and keeps those a kept
// job's record needs.
func TestCommandSnapshotGC(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "v0\n"})
	job := runLine(t, dir, `printf 'v1\n' > a.txt`).field(t, ".data.jobId").(string)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v2\n"), 0o644)
	runLine(t, dir, "true") // the scan keeps v2; v1 and v0 stay named by the job
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("v3\n"), 0o644)
	runLine(t, dir, "true") // v2 is now named by nothing
	ageTree(t, filepath.Join(dir, ".agentic", "snapshots"), time.Hour)
	g := runAWEnv(t, dir, nil, approver(t), "gc")
	mustOK(t, g, "gc")
	if g.field(t, ".data.snapshots.blobs") != float64(1) {
		t.Fatalf("gc snapshots: %s", g.Stdout)
	}
	d := runAW(t, dir, nil, "command", "diff", job)
	if !strings.Contains(d.field(t, ".data.diff").(string), "-v0\n+v1\n") {
		t.Errorf("the job's diff lost its content to gc: %s", d.Stdout)
	}
}

// Symlinks are restored as links, never followed: a link the job removed
// comes back, a retargeted one points where it did, and a file the job
// replaced with a link to outside the workspace is restored by replacing
// the link itself (the outside file is never written).
func TestCommandUndoSymlinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("outside\n"), 0o644)
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a0\n", "t1": "1\n", "t2": "2\n"})
	os.Symlink("t1", filepath.Join(dir, "gone-link"))
	os.Symlink("t1", filepath.Join(dir, "moved-link"))
	job := runLine(t, dir, "rm gone-link; rm moved-link; ln -s t2 moved-link; rm a.txt; ln -s "+outside+" a.txt").field(t, ".data.jobId").(string)
	u := runAW(t, dir, nil, "command", "undo", job)
	mustOK(t, u, "undo")
	if nr := u.field(t, ".data.notRestorable").([]any); len(nr) != 0 {
		t.Fatalf("notRestorable %v", nr)
	}
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit")
	for link, want := range map[string]string{"gone-link": "t1", "moved-link": "t1"} {
		if got, err := os.Readlink(filepath.Join(dir, link)); err != nil || got != want {
			t.Errorf("%s -> %q (%v), want %q", link, got, err, want)
		}
	}
	if m := modeOf(t, filepath.Join(dir, "a.txt")); !m.IsRegular() || readFile(t, filepath.Join(dir, "a.txt")) != "a0\n" {
		t.Errorf("a.txt is %v %q", m, readFile(t, filepath.Join(dir, "a.txt")))
	}
	if readFile(t, outside) != "outside\n" {
		t.Fatal("undo wrote through the link to a file outside the workspace")
	}
	// A link the agent points at a protected path is refused as the link.
	job = runLine(t, dir, "ln -s t1 .gitlink").field(t, ".data.jobId").(string)
	os.Remove(filepath.Join(dir, ".gitlink"))
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.Symlink("t1", filepath.Join(dir, ".git", "hook"))
	r := runAW(t, dir, nil, "command", "undo", job)
	if r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("undo of a link already gone: %s", r.Stdout)
	}
}

// Directories a job made are recorded and removed by undo once the
// restore leaves them empty; one still holding a file the job did not
// make stays. A directory the job removed is made again, and rolling the
// undo back puts the job's tree back.
func TestCommandUndoDirectories(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a\n"})
	os.MkdirAll(filepath.Join(dir, "old", "empty"), 0o755)
	r := runLine(t, dir, "mkdir -p made/deep shared; printf x > made/deep/f.txt; printf y > shared/g.txt; rmdir old/empty")
	want := []string{"created made", "created made/deep", "created made/deep/f.txt", "deleted old/empty", "created shared", "created shared/g.txt"}
	if got := changed(t, r); !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	os.WriteFile(filepath.Join(dir, "shared", "mine.txt"), []byte("not the job's\n"), 0o644)
	u := runAW(t, dir, nil, "command", "undo", r.field(t, ".data.jobId").(string))
	mustOK(t, u, "command undo")
	tx := u.field(t, ".data.transactionId").(string)
	mustOK(t, runAW(t, dir, nil, "edit", "commit", tx), "edit commit")
	if exists(filepath.Join(dir, "made")) {
		t.Error("the directories the job made are still there after the undo")
	}
	if !exists(filepath.Join(dir, "shared", "mine.txt")) || exists(filepath.Join(dir, "shared", "g.txt")) {
		t.Error("shared/ should keep the file the job did not make and lose the one it made")
	}
	if fi, err := os.Stat(filepath.Join(dir, "old", "empty")); err != nil || !fi.IsDir() {
		t.Errorf("the directory the job removed was not made again: %v", err)
	}
	mustOK(t, runAW(t, dir, nil, "edit", "rollback", tx), "edit rollback")
	if readFile(t, filepath.Join(dir, "made", "deep", "f.txt")) != "x" || exists(filepath.Join(dir, "old", "empty")) {
		t.Error("rolling back the undo did not put the job's directories back")
	}
	// A job that only makes a directory is undone too.
	m := runLine(t, dir, "mkdir lonely")
	u = runAW(t, dir, nil, "command", "undo", m.field(t, ".data.jobId").(string))
	mustOK(t, u, "undo of a mkdir")
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit of a mkdir's undo")
	if exists(filepath.Join(dir, "lonely")) {
		t.Error("the directory of a mkdir job is still there after its undo")
	}
}

// Special files a job makes or removes are recorded and reported as not
// restorable, by kind; the rest of the job is still undone.
func TestCommandUndoSpecialFiles(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "a\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "old.fifo"), 0o644); err != nil {
		t.Skip("no fifos here:", err)
	}
	r := runLine(t, dir, "mkfifo new.fifo; rm old.fifo; printf b > a.txt")
	if got := changed(t, r); !slices.Equal(got, []string{"modified a.txt", "created new.fifo", "deleted old.fifo"}) {
		t.Fatalf("changes %v", got)
	}
	if r.field(t, ".data.changes.unrestorable") != float64(2) {
		t.Errorf("unrestorable: %v", r.field(t, ".data.changes"))
	}
	u := runAW(t, dir, nil, "command", "undo", r.field(t, ".data.jobId").(string))
	mustOK(t, u, "command undo")
	var reasons []string
	for _, s := range u.field(t, ".data.notRestorable").([]any) {
		m := s.(map[string]any)
		reasons = append(reasons, fmt.Sprint(m["path"], ": ", m["reason"]))
	}
	if len(reasons) != 2 || !strings.Contains(strings.Join(reasons, "\n"), "new.fifo: it is now a fifo (a special file)") || !strings.Contains(strings.Join(reasons, "\n"), "old.fifo: it was a fifo (a special file) before the job") {
		t.Errorf("notRestorable %v", reasons)
	}
	mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "edit commit")
	if readFile(t, filepath.Join(dir, "a.txt")) != "a\n" {
		t.Error("a.txt was not restored beside the special files")
	}
	if fi, err := os.Lstat(filepath.Join(dir, "new.fifo")); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("undo removed the fifo it said it leaves alone")
	}
}

// A kill of aw while a snapshot writes its first blob, or once its blobs
// are written and before its manifest is, leaves a store the next job
// records with exactly and undoes from: the manifest never names a blob
// that is not there.
func TestCommandSnapshotCrashPoints(t *testing.T) {
	for _, step := range []string{"snapshot.blob", "snapshot.manifest"} {
		t.Run(step, func(t *testing.T) {
			dir := undoWorkspace(t, "", map[string]string{"a.txt": "a0\n", "b/c.txt": "c0\n"})
			crashAt(t, dir, step, "command", "run", "--line", "true")
			r := runLine(t, dir, "printf 'a1\\n' > a.txt; printf 'c1\\n' > b/c.txt")
			if got := changed(t, r); !slices.Equal(got, []string{"modified a.txt", "modified b/c.txt"}) {
				t.Fatalf("after a kill at %s: changes %v", step, got)
			}
			u := runAW(t, dir, nil, "command", "undo", r.field(t, ".data.jobId").(string))
			mustOK(t, u, "command undo")
			if n := len(u.field(t, ".data.notRestorable").([]any)); n != 0 {
				t.Fatalf("after a kill at %s: %d changes not restorable: %s", step, n, u.Stdout)
			}
			mustOK(t, runAW(t, dir, nil, "edit", "commit", u.field(t, ".data.transactionId").(string)), "commit")
			if readFile(t, filepath.Join(dir, "a.txt")) != "a0\n" || readFile(t, filepath.Join(dir, "b", "c.txt")) != "c0\n" {
				t.Errorf("after a kill at %s: not restored", step)
			}
		})
	}
}

// The scan after a job reads what the watch on the tree's directories
// queued: a file rewritten with its size and mtime put back is still
// recorded, a file made and removed during the job is not, and an
// ignored file the job writes is not (the tree is then scanned whole).
func TestCommandSnapshotWatchedJob(t *testing.T) {
	dir := undoWorkspace(t, "", map[string]string{"a.txt": "same\n", "sub/b.txt": "b\n", ".gitignore": "*.log\n"})
	runLine(t, dir, "true")
	r := runLine(t, dir, "cp -p a.txt ref; printf 'SAME\\n' > a.txt; touch -r ref a.txt; rm ref; printf t > sub/tmp; rm sub/tmp")
	if got := changed(t, r); !slices.Equal(got, []string{"modified a.txt"}) {
		t.Fatalf("changes %v, want the rewrite alone", got)
	}
	r = runLine(t, dir, "printf log > build.log; printf 'b1\\n' > sub/b.txt")
	if got := changed(t, r); !slices.Equal(got, []string{"modified sub/b.txt"}) {
		t.Fatalf("changes %v, want sub/b.txt alone", got)
	}
}
