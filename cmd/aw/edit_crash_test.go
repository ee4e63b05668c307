package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// autoWorkspace makes a temp workspace in Auto mode with destructive edits
// allowed, so commits run without a human.
func autoWorkspace(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"permissionMode": 2, "allowDestructiveEdits": true` + extra + `}`
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// manyFiles writes n files under dir/src and returns operations that
// rewrite each of them and create as many in a new directory.
func manyFiles(t *testing.T, dir string, n int, round int) []map[string]any {
	t.Helper()
	var ops []map[string]any
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("src/f%03d.txt", i)
		abs := filepath.Join(dir, rel)
		if round == 0 {
			os.MkdirAll(filepath.Dir(abs), 0o755)
			if err := os.WriteFile(abs, []byte(fmt.Sprintf("before %d\n", i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ops = append(ops, map[string]any{"type": "rewrite", "path": rel, "content": fmt.Sprintf("after %d round %d\n", i, round)})
	}
	ops = append(ops, map[string]any{"type": "create", "path": fmt.Sprintf("gen%d/deep/new.txt", round), "content": "new\n"})
	ops = append(ops, map[string]any{"type": "mkdir", "path": fmt.Sprintf("gen%d/empty", round)})
	return ops
}

func opsInput(t *testing.T, dir string, ops []map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"operations": ops})
	p := filepath.Join(t.TempDir(), "ops.json")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot reads every file under src/ and the gen directories.
func snapshot(dir string) map[string]string {
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(rel, ".agentic") {
			return filepath.SkipDir
		}
		if fi.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestEditCommitSurvivesSIGKILL kills `aw edit commit` at many points of a
// 200-file transaction. After the next aw call the tree is exactly all
// before or all after, and the transaction's status says which.
func TestEditCommitSurvivesSIGKILL(t *testing.T) {
	dir := autoWorkspace(t, "")
	rng := rand.New(rand.NewSource(7))
	var outcomes = map[string]int{}
	// One full commit first: its duration is the window the kills spread over.
	res := runAW(t, dir, nil, "edit", "apply", "--input", opsInput(t, dir, manyFiles(t, dir, 200, 0)))
	if res.Code != 0 {
		t.Fatalf("setup apply: %s", res.Stdout)
	}
	start := time.Now()
	warm := runAW(t, dir, nil, "edit", "apply", "--input", opsInput(t, dir, manyFiles(t, dir, 200, 100)))
	window := time.Since(start)
	if warm.Code != 0 {
		t.Fatalf("timing apply: %s", warm.Stdout)
	}
	for round := 1; round <= 24; round++ {
		ops := manyFiles(t, dir, 200, round)
		beforeTree := snapshot(dir)
		res := runAW(t, dir, nil, "edit", "preview", "--input", opsInput(t, dir, ops))
		if res.Code != 0 {
			t.Fatalf("preview: %s", res.Stdout)
		}
		tx := res.field(t, ".data.transactionId").(string)
		cmd := exec.Command(awBin, "edit", "commit", tx)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/.none")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int63n(int64(window) * 5 / 4)))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		show := runAW(t, dir, nil, "edit", "show", tx) // any call recovers first
		status := show.field(t, ".data.status").(string)
		tree := snapshot(dir)
		switch status {
		case "applied":
			for i := 0; i < 200; i++ {
				if want := fmt.Sprintf("after %d round %d\n", i, round); tree[fmt.Sprintf("src/f%03d.txt", i)] != want {
					t.Fatalf("round %d: status applied but src/f%03d.txt holds %q", round, i, tree[fmt.Sprintf("src/f%03d.txt", i)])
				}
			}
			if tree[fmt.Sprintf("gen%d/empty/", round)] != "dir" || tree[fmt.Sprintf("gen%d/deep/new.txt", round)] != "new\n" {
				t.Fatalf("round %d: status applied but the new files or directories are missing", round)
			}
		case "failed", "planned":
			if !sameTree(beforeTree, tree) {
				t.Fatalf("round %d: status %s but the tree is not what it was before the commit", round, status)
			}
		default:
			t.Fatalf("round %d: unexpected status %s", round, status)
		}
		outcomes[status]++
		if _, err := os.Stat(filepath.Join(dir, ".agentic", "transactions", "journal")); err == nil {
			t.Fatalf("round %d: the journal survived recovery", round)
		}
		stray, _ := filepath.Glob(filepath.Join(dir, "src", ".*.aw-*"))
		if len(stray) > 0 {
			t.Logf("round %d: %d temp files left by the killed process", round, len(stray))
		}
	}
	t.Logf("outcomes over a %v commit window: %v", window, outcomes)
	if outcomes["failed"] == 0 || outcomes["applied"] == 0 {
		t.Logf("the kills did not land on both sides of the commit (%v); the test still checked every round", outcomes)
	}
}

// TestEditCommitFailureRestoresEverything makes the Nth write of a commit
// fail (its directory is made unwritable after the preview): every file
// and directory is back as before and no stray directory remains.
func TestEditCommitFailureRestoresEverything(t *testing.T) {
	dir := autoWorkspace(t, "")
	var ops []map[string]any
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("ok/f%d.txt", i)
		if i == 6 {
			name = "locked/z.txt"
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte("before\n"), 0o644)
		ops = append(ops, map[string]any{"type": "replace", "path": name, "search": "before", "replacement": "after"})
		if i == 3 {
			ops = append(ops, map[string]any{"type": "create", "path": "new/deep/n.txt", "content": "x"})
			ops = append(ops, map[string]any{"type": "mkdir", "path": "made/sub"})
		}
	}
	res := runAW(t, dir, nil, "edit", "preview", "--input", opsInput(t, dir, ops))
	if res.Code != 0 {
		t.Fatalf("preview: %s", res.Stdout)
	}
	tx := res.field(t, ".data.transactionId").(string)
	beforeTree := snapshot(dir)
	undo := makeUnwritable(t, filepath.Join(dir, "locked"))
	res = runAW(t, dir, nil, "edit", "commit", tx)
	undo()
	if res.Code == 0 {
		t.Fatalf("commit into an unwritable directory succeeded: %s", res.Stdout)
	}
	if !sameTree(beforeTree, snapshot(dir)) {
		t.Fatalf("after the failed commit the tree differs from before:\nbefore %v\nafter  %v", beforeTree, snapshot(dir))
	}
	if res.field(t, ".error.code") != "EDIT_CONFLICT" {
		t.Fatalf("error %v", res.field(t, ".error.code"))
	}
	show := runAW(t, dir, nil, "edit", "show", tx)
	if show.field(t, ".data.status") != "failed" {
		t.Fatalf("status %v, want failed", show.field(t, ".data.status"))
	}
	stray, _ := filepath.Glob(filepath.Join(dir, "*", ".*.aw-*"))
	if len(stray) > 0 {
		t.Fatalf("temp files left: %v", stray)
	}
}

// makeUnwritable makes dir refuse new files, even for root (chattr +i).
func makeUnwritable(t *testing.T, dir string) func() {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		return func() { os.Chmod(dir, 0o755) }
	}
	if runtime.GOOS != "linux" {
		testenv.Missing(t, "chattr (root cannot make a directory unwritable without it)", "run the tests on Linux or as a user other than root")
	}
	chattr := testenv.Need(t, "chattr", "apt-get install e2fsprogs (root needs chattr +i to make a directory unwritable)")
	if out, err := exec.Command(chattr, "+i", dir).CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("an immutable attribute (chattr +i failed: %v: %s)", err, out), "run the tests on a file system with immutable attributes (ext4, xfs, btrfs), not tmpfs or overlayfs; or as a user other than root")
	}
	return func() { exec.Command("chattr", "-i", dir).Run() }
}

// TestEditConcurrentCommitsOneWins commits two transactions planned against
// the same file contents at once: exactly one succeeds, the other is stale.
func TestEditConcurrentCommitsOneWins(t *testing.T) {
	dir := autoWorkspace(t, "")
	os.WriteFile(filepath.Join(dir, "shared.txt"), []byte("value = 0\n"), 0o644)
	for round := 0; round < 5; round++ {
		os.WriteFile(filepath.Join(dir, "shared.txt"), []byte("value = 0\n"), 0o644)
		var txs []string
		for _, v := range []string{"1", "2"} {
			res := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"replace","path":"shared.txt","search":"value = 0","replacement":"value = `+v+`"}`)
			txs = append(txs, res.field(t, ".data.transactionId").(string))
		}
		results := make([]Result, 2)
		var wg sync.WaitGroup
		for i, tx := range txs {
			wg.Add(1)
			go func(i int, tx string) {
				defer wg.Done()
				results[i] = runAW(t, dir, nil, "edit", "commit", tx)
			}(i, tx)
		}
		wg.Wait()
		ok, stale := 0, 0
		for _, r := range results {
			switch {
			case r.Code == 0:
				ok++
			case r.Env["error"].(map[string]any)["code"] == "EDIT_CONFLICT":
				stale++
			}
		}
		if ok != 1 || stale != 1 {
			t.Fatalf("round %d: %d commits succeeded and %d were stale, want 1 and 1: %s / %s", round, ok, stale, results[0].Stdout, results[1].Stdout)
		}
	}
}

// TestEditConcurrentStaging stages 20 approvals at once in Manual mode:
// 20 distinct records and a valid state.json.
func TestEditConcurrentStaging(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 0}`), 0o644)
	const n = 20
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := runAW(t, dir, nil, "edit", "apply", "--op", fmt.Sprintf(`{"type":"create","path":"f%d.txt","content":"x"}`, i))
			if r.Code != 3 {
				t.Errorf("apply %d: exit %d: %s", i, r.Code, r.Stdout)
				return
			}
			ids[i] = r.field(t, ".data.approval.id").(string)
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct approval ids, want %d", len(seen), n)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "approvals", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Records []struct{ ID, Status string }
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("state.json is not valid JSON: %v", err)
	}
	pending := 0
	for _, r := range state.Records {
		if seen[r.ID] && r.Status == "pending" {
			pending++
		}
	}
	if pending != n {
		t.Fatalf("%d pending records in state.json, want %d", pending, n)
	}
}
