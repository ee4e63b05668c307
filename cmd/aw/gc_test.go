package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/store"
)

// ageTree sets the modification time of path and everything under it.
func ageTree(t *testing.T, path string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeConfig replaces .agentic/config.json (the human's file).
func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gcFixture is a workspace with old and new entries of every kind, some
// of them still needed:
//
//	transactions: the oldest is named by a pending approval (apply staged
//	  in Manual mode), then 14 previews; all 40 days old.
//	jobs: a running `sleep` (oldest), then 12 finished runs; all old.
//	artifacts: two old, one fresh.
//	browser: an old profile of a dead session, an old one of a live session.
type gcFixture struct {
	dir       string
	staged    string // the transaction the pending approval names
	approval  string
	txs       []string // previews, oldest first
	running   string
	jobs      []string // finished, oldest first
	artifacts []string // absolute: old, old, fresh
	dead      string   // browser profile directories
	live      string
}

const gcAge = 40 * 24 * time.Hour

func newGCFixture(t *testing.T) *gcFixture {
	t.Helper()
	f := &gcFixture{dir: t.TempDir()}
	dir := f.dir
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	writeConfig(t, dir, `{"permissionMode": 0, "commands": {"allow": ["echo", "sleep"]}}`)
	r := runAW(t, dir, nil, "edit", "apply", "--op", `{"type":"create","path":"staged.txt","content":"staged\n"}`)
	expect(t, r, 3, "")
	f.staged = r.field(t, ".data.transactionId").(string)
	f.approval = r.field(t, ".data.approval.id").(string)
	for i := 0; i < 14; i++ {
		r := runAW(t, dir, nil, "edit", "preview", "--op", fmt.Sprintf(`{"type":"create","path":"p%02d.txt","content":"%s"}`, i, strings.Repeat("x", 1000)))
		wantOK(t, r, 0)
		f.txs = append(f.txs, r.field(t, ".data.transactionId").(string))
	}
	writeConfig(t, dir, `{"permissionMode": 2, "commands": {"allow": ["echo", "sleep"]}}`)
	r = runAW(t, dir, nil, "command", "start", "--", "sleep", "60")
	wantOK(t, r, 0)
	f.running = r.field(t, ".data.jobId").(string)
	t.Cleanup(func() { runAW(t, dir, nil, "command", "cancel", f.running) })
	for i := 0; i < 12; i++ {
		r := runAW(t, dir, nil, "command", "run", "--", "echo", fmt.Sprint(i))
		wantOK(t, r, 0)
		f.jobs = append(f.jobs, r.field(t, ".data.jobId").(string))
	}
	writeConfig(t, dir, `{"permissionMode": 0, "commands": {"allow": ["echo", "sleep"]}}`)
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, ".agentic", "artifacts", store.NewID("artifact")+"-out.txt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat("artifact ", 1000)), 0o644)
		f.artifacts = append(f.artifacts, p)
	}
	for _, s := range []struct {
		dir *string
		pid int
	}{{&f.dead, 0}, {&f.live, os.Getpid()}} {
		id := store.NewID("session")
		*s.dir = filepath.Join(dir, ".agentic", "browser", id)
		os.MkdirAll(filepath.Join(*s.dir, "profile", "Default"), 0o700)
		os.WriteFile(filepath.Join(*s.dir, "profile", "Default", "Cookies"), []byte(strings.Repeat("c", 5000)), 0o600)
		os.WriteFile(*s.dir+".json", []byte(fmt.Sprintf(`{"id":%q,"pid":%d}`, id, s.pid)), 0o644)
	}
	for _, k := range []string{"transactions", "jobs", "browser"} {
		ageTree(t, filepath.Join(dir, ".agentic", k), gcAge)
	}
	ageTree(t, f.artifacts[0], gcAge)
	ageTree(t, f.artifacts[1], gcAge)
	return f
}

func txPath(dir, id string) string  { return filepath.Join(dir, ".agentic", "transactions", id) }
func jobPath(dir, id string) string { return filepath.Join(dir, ".agentic", "jobs", id) }

// kindTotals reads data.kinds into kind -> field -> value.
func kindTotals(t *testing.T, r Result) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	for _, k := range r.field(t, ".data.kinds").([]any) {
		m := k.(map[string]any)
		row := map[string]float64{}
		for key, v := range m {
			if n, ok := v.(float64); ok {
				row[key] = n
			}
		}
		out[m["kind"].(string)] = row
	}
	return out
}

// TestGCPrunesOldKeepsNeeded: aw gc removes old transactions, job
// directories, artifacts and browser profiles, and keeps the transaction a
// pending approval names, the running job, the live browser session, the
// newest ten transactions and jobs, and a fresh artifact. --dry-run
// reports the same and removes nothing. One envelope reports counts and
// bytes per kind.
func TestGCPrunesOldKeepsNeeded(t *testing.T) {
	f := newGCFixture(t)
	dir, human := f.dir, approver(t)
	before := treeDigest(t, dir)

	dry := runAWEnv(t, dir, nil, human, "gc", "--dry-run")
	wantOK(t, dry, 0)
	if dry.field(t, ".operation") != "store.gc" || dry.field(t, ".data.dryRun") != true {
		t.Fatalf("dry run: %s", dry.Stdout)
	}
	unchangedTree(t, before, treeDigest(t, dir))

	r := runAWEnv(t, dir, nil, human, "gc")
	wantOK(t, r, 0)
	want := map[string]float64{"transactions": 4, "jobs": 2, "artifacts": 2, "browser": 1}
	got, dryGot := kindTotals(t, r), kindTotals(t, dry)
	for kind, n := range want {
		if got[kind]["removed"] != n || dryGot[kind]["removed"] != n {
			t.Errorf("%s: removed %v (dry run %v), want %v: %s", kind, got[kind]["removed"], dryGot[kind]["removed"], n, r.Stdout)
		}
		if got[kind]["bytesFreed"] <= 0 {
			t.Errorf("%s: bytesFreed %v", kind, got[kind]["bytesFreed"])
		}
	}
	if freed := r.field(t, ".data.bytesFreed").(float64); freed != r.field(t, ".data.storeBytesBefore").(float64)-r.field(t, ".data.storeBytesAfter").(float64) {
		t.Errorf("bytesFreed %v does not match the store sizes: %s", freed, r.Stdout)
	}
	if !strings.Contains(r.field(t, ".summary").(string), "4 transactions") {
		t.Errorf("summary: %s", r.field(t, ".summary"))
	}

	// Removed: the oldest previews past the newest ten, the oldest runs.
	for _, id := range f.txs[:4] {
		if exists(txPath(dir, id)) {
			t.Errorf("old transaction %s survived", id)
		}
	}
	for _, id := range f.jobs[:2] {
		if exists(jobPath(dir, id)) {
			t.Errorf("old job %s survived", id)
		}
	}
	if exists(f.artifacts[0]) || exists(f.artifacts[1]) || exists(f.dead) || exists(f.dead+".json") {
		t.Errorf("an old artifact or a dead session's profile survived")
	}
	// Kept: what is still needed.
	for what, p := range map[string]string{
		"the transaction a pending approval names": txPath(dir, f.staged),
		"the running job":                          jobPath(dir, f.running),
		"the fresh artifact":                       f.artifacts[2],
		"the live session's profile":               f.live,
	} {
		if !exists(p) {
			t.Errorf("%s was pruned", what)
		}
	}
	for _, id := range f.txs[4:] {
		if !exists(txPath(dir, id)) {
			t.Errorf("transaction %s, among the newest ten, was pruned", id)
		}
	}
	for _, id := range f.jobs[2:] {
		if !exists(jobPath(dir, id)) {
			t.Errorf("job %s, among the newest ten, was pruned", id)
		}
	}
	// The recovery listing still reads, and the staged apply still runs
	// once the human accepts it.
	c := runAW(t, dir, nil, "inspect", "changes")
	wantOK(t, c, 0)
	if n := len(c.field(t, ".data.transactions").([]any)); n != 11 {
		t.Errorf("inspect changes lists %d transactions, want 11", n)
	}
	expect(t, runAWEnv(t, dir, nil, human, "approval", "accept", f.approval), 0, "")
	wantOK(t, runAW(t, dir, nil, "edit", "commit", f.staged), 0)
	if b, _ := os.ReadFile(filepath.Join(dir, "staged.txt")); string(b) != "staged\n" {
		t.Errorf("the approved transaction after gc wrote %q", b)
	}

	// Nothing more is due: a second run frees nothing.
	again := runAWEnv(t, dir, nil, human, "gc")
	wantOK(t, again, 0)
	if again.field(t, ".data.bytesFreed") != 0.0 {
		t.Errorf("a second gc freed %v", again.field(t, ".data.bytesFreed"))
	}
}

// TestGCNeedsHuman: without a terminal or the approver token aw gc is
// HUMAN_REQUIRED and removes nothing, dry run or not; at --tier read it
// is refused by the tier first.
func TestGCNeedsHuman(t *testing.T) {
	f := newGCFixture(t)
	before := treeDigest(t, f.dir)
	for _, args := range [][]string{{"gc"}, {"gc", "--dry-run"}, {"call", "store", `{"action":"gc"}`}} {
		r := runAW(t, f.dir, nil, args...)
		expect(t, r, 1, "HUMAN_REQUIRED")
		if !strings.Contains(r.field(t, ".error.message").(string), "AW_APPROVER_TOKEN") {
			t.Errorf("the refusal must say how a human runs it: %s", r.Stdout)
		}
	}
	wrong := []string{"XDG_CONFIG_HOME=" + approver(t)[0][len("XDG_CONFIG_HOME="):], "AW_APPROVER_TOKEN=guessed"}
	expect(t, runAWEnv(t, f.dir, nil, wrong, "gc"), 1, "HUMAN_REQUIRED")
	r := runAWEnv(t, f.dir, nil, approver(t), "--tier", "read", "gc")
	expect(t, r, 1, "TOOL_DISABLED")
	unchangedTree(t, before, treeDigest(t, f.dir))
}

// TestGCAuto: an agent's call prunes what is due at most once an hour
// (the stamp .agentic/gc.json), keeping what is needed; a call capped at
// --tier read prunes nothing and writes no stamp.
func TestGCAuto(t *testing.T) {
	f := newGCFixture(t)
	dir := f.dir
	stamp := filepath.Join(dir, ".agentic", "gc.json")
	os.Remove(stamp)
	before := treeDigest(t, dir)
	wantOK(t, runAW(t, dir, nil, "--tier", "read", "inspect", "list"), 0)
	unchangedTree(t, before, treeDigest(t, dir))

	wantOK(t, runAW(t, dir, nil, "inspect", "list"), 0)
	if !exists(stamp) {
		t.Fatalf("no stamp after the automatic pruning")
	}
	if exists(txPath(dir, f.txs[0])) || exists(jobPath(dir, f.jobs[0])) || exists(f.artifacts[0]) {
		t.Errorf("automatic pruning left old entries")
	}
	if !exists(txPath(dir, f.staged)) || !exists(jobPath(dir, f.running)) || !exists(f.live) {
		t.Errorf("automatic pruning removed a needed entry")
	}
	// Within the hour, nothing is pruned again.
	late := filepath.Join(dir, ".agentic", "artifacts", store.NewID("artifact")+"-late.txt")
	os.WriteFile(late, []byte("late"), 0o644)
	ageTree(t, late, gcAge)
	wantOK(t, runAW(t, dir, nil, "inspect", "list"), 0)
	if !exists(late) {
		t.Errorf("pruned again within the hour")
	}
	// An old stamp lets the next call prune.
	ageTree(t, stamp, 2*time.Hour)
	wantOK(t, runAW(t, dir, nil, "inspect", "list"), 0)
	if exists(late) {
		t.Errorf("not pruned after the stamp aged")
	}
}

// TestGCSizeCap: over store.maxBytes the oldest prunable entries go even
// within the retention age, until the store fits; the newest stay.
func TestGCSizeCap(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic", "artifacts"), 0o755)
	writeConfig(t, dir, `{"store": {"maxBytes": 1048576}}`)
	var arts []string
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, ".agentic", "artifacts", store.NewID("artifact")+"-big.txt")
		os.WriteFile(p, make([]byte, 400<<10), 0o644)
		ageTree(t, p, time.Duration(5-i)*time.Hour) // oldest first
		arts = append(arts, p)
	}
	r := runAWEnv(t, dir, nil, approver(t), "gc")
	wantOK(t, r, 0)
	if n := kindTotals(t, r)["artifacts"]["removed"]; n != 3 {
		t.Fatalf("removed %v artifacts, want the oldest 3: %s", n, r.Stdout)
	}
	if r.field(t, ".data.removed.0.reason") != "size" || r.field(t, ".data.overCap") != false {
		t.Errorf("removed for size, under the cap after: %s", r.Stdout)
	}
	for i, p := range arts {
		if exists(p) != (i >= 3) {
			t.Errorf("artifact %d exists %v", i, exists(p))
		}
	}
	// The setting is checked when settings load.
	writeConfig(t, dir, `{"store": {"maxBytes": 10, "retentionDays": 0}}`)
	wantErr(t, runAW(t, dir, nil, "inspect", "list"), "INVALID_INPUT", 2, "store.")
}

// TestGCTerminalConfirms: on the human's terminal aw gc shows what would
// go and removes it only after y; N removes nothing.
func TestGCTerminalConfirms(t *testing.T) {
	f := newGCFixture(t)
	noToken := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	before := treeDigest(t, f.dir)
	shown := ptyRun(t, f.dir, noToken, "N", "gc", "-o", "json")
	if !strings.Contains(shown, "would free") || !strings.Contains(shown, "4 transactions") {
		t.Fatalf("the question does not say what would go: %q", shown)
	}
	if env := envelopeIn(t, shown); env["ok"] != true || !strings.Contains(env["summary"].(string), "Nothing removed") {
		t.Fatalf("after N: %v", env)
	}
	unchangedTree(t, before, treeDigest(t, f.dir))
	shown = ptyRun(t, f.dir, noToken, "y", "gc", "-o", "json")
	if env := envelopeIn(t, shown); env["ok"] != true || env["data"].(map[string]any)["bytesFreed"].(float64) <= 0 {
		t.Fatalf("after y: %v", env)
	}
	if exists(txPath(f.dir, f.txs[0])) || !exists(txPath(f.dir, f.staged)) {
		t.Fatalf("after y: the old preview must go and the staged transaction stay")
	}
}
