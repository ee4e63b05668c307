package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The command rows: `aw command status` tailing a job log of 1 GiB
// and 4 GiB against `tail -c 2000` on the same file (the logs are sparse,
// with real text at the end: a tail that reads only the end costs the same
// for both sizes), and the overhead of `aw command run -- true` against
// running true directly, and what the OS sandbox adds to it: the same run
// with the default sandbox against commands.sandbox off (a difference of
// medians, not a ratio). `aw command output` of the same 1 GiB log from its
// start returns the newest 20,000 characters (maxToolResultChars): it is
// held to the same target against `tail -c 20000`.

func commandRowNames() []string {
	return []string{"command-status-1g", "command-status-4g", "command-output-1g", "command-run-true", "command-run-sandbox", "command-run-snapshot"}
}

const statusTail = 2000

func commandRows(b *bench) []row {
	var rows []row
	for _, gib := range []int64{1, 4} {
		root, id, err := b.jobWithLog(fmt.Sprintf("jobs-%dg", gib), gib<<30)
		if err != nil {
			fatalf("preparing the %d GiB job log: %v", gib, err)
		}
		log := filepath.Join(".agentic", "jobs", id, "stdout.log")
		rows = append(rows, row{name: fmt.Sprintf("command-status-%dg", gib), target: 1.5,
			aw:    b.awSide(root, "command", "status", id, "--tail-chars", fmt.Sprint(statusTail)),
			peer:  side{name: "tail -c 2000", argv: []string{"tail", "-c", fmt.Sprint(statusTail), log}, dir: root},
			check: checkTail})
		if gib == 1 {
			rows = append(rows, row{name: "command-output-1g", target: 1.5,
				aw:    b.awSide(root, "command", "output", id),
				peer:  side{name: "tail -c 20000", argv: []string{"tail", "-c", "20000", log}, dir: root},
				check: checkOutput})
		}
	}
	root, _, err := b.jobWithLog("jobs-run", 0)
	if err != nil {
		fatalf("preparing the run workspace: %v", err)
	}
	rows = append(rows, row{name: "command-run-true", target: 5, showRSS: true,
		aw:   b.awSide(root, "command", "run", "--", "true"),
		peer: side{name: "true", argv: []string{"true"}, dir: root},
		// Every run leaves a job: clear them so each run starts alike.
		after: func() { os.RemoveAll(filepath.Join(root, ".agentic", "jobs")) },
		check: func(aw, peer []byte) error {
			env, err := parseEnvelope(aw)
			if err != nil {
				return err
			}
			var d struct {
				ExitCode *int `json:"exitCode"`
			}
			if err := json.Unmarshal(env.Data, &d); err != nil || d.ExitCode == nil || *d.ExitCode != 0 {
				return fmt.Errorf("aw did not report exit code 0: %s", env.Summary)
			}
			return nil
		}})
	off, err := b.commandWorkspace("jobs-run-unsandboxed", `, "sandbox": "off"`)
	if err != nil {
		fatalf("preparing the unsandboxed workspace: %v", err)
	}
	offSide := b.awSide(off, "command", "run", "--", "true")
	offSide.name = "aw, sandbox off"
	rows = append(rows, row{name: "command-run-sandbox", maxDiff: 20 * time.Millisecond,
		aw:   b.awSide(root, "command", "run", "--", "true"),
		peer: offSide,
		after: func() {
			os.RemoveAll(filepath.Join(root, ".agentic", "jobs"))
			os.RemoveAll(filepath.Join(off, ".agentic", "jobs"))
		},
		// The figure counts only when the sandbox really ran on one side
		// and not on the other.
		check: func(aw, peer []byte) error {
			for _, side := range []struct {
				out  []byte
				want string
			}{{aw, "bubblewrap"}, {peer, "none"}} {
				env, err := parseEnvelope(side.out)
				if err != nil {
					return err
				}
				var d struct {
					ExitCode *int `json:"exitCode"`
					Sandbox  struct {
						Mechanism string `json:"mechanism"`
						Reason    string `json:"reason"`
					} `json:"sandbox"`
				}
				if err := json.Unmarshal(env.Data, &d); err != nil || d.ExitCode == nil || *d.ExitCode != 0 {
					return fmt.Errorf("aw did not report exit code 0: %s", env.Summary)
				}
				if d.Sandbox.Mechanism != side.want {
					return fmt.Errorf("sandbox %q, want %q (%s); install bubblewrap (scripts/test-deps)", d.Sandbox.Mechanism, side.want, d.Sandbox.Reason)
				}
			}
			return nil
		}})
	if b.o.rows == "" || strings.Contains(b.o.rows, "command-run-snapshot") {
		rows = append(rows, b.snapshotRow())
	}
	return rows
}

// snapshotRow measures what recording a job's changes adds to `aw command
// run -- true` on the generated tree when nothing changed (aw with
// commands.snapshot auto minus aw with it off), against `git status
// --porcelain` on the same tree committed to git. It also reports the
// first snapshot's time and the store's size, and the time to plan the
// undo of a job that changed 10 files.
func (b *bench) snapshotRow() row {
	on, err := b.snapshotTree("snapshot-on", "")
	if err != nil {
		fatalf("preparing the snapshot tree: %v", err)
	}
	off, err := b.snapshotTree("snapshot-off", `, "snapshot": "off"`)
	if err != nil {
		fatalf("preparing the snapshot-off tree: %v", err)
	}
	os.RemoveAll(filepath.Join(on, ".agentic", "snapshots"))
	start := time.Now()
	if _, err := b.awSide(on, "command", "run", "--", "true").run(); err != nil {
		fatalf("first snapshot: %v", err)
	}
	first := time.Since(start)
	logf("command-run-snapshot: first snapshot of %d files %s, store %s", b.o.files, dur(first), duOf(filepath.Join(on, ".agentic", "snapshots")))
	b.undoFigure(on)
	base := b.awSide(off, "command", "run", "--", "true")
	base.name = "aw, snapshot off"
	clear := func() {
		os.RemoveAll(filepath.Join(on, ".agentic", "jobs"))
		os.RemoveAll(filepath.Join(off, ".agentic", "jobs"))
	}
	return row{name: "command-run-snapshot", target: 1.5, baseline: &base,
		aw:      b.awSide(on, "command", "run", "--", "true"),
		peer:    side{name: "git status --porcelain", argv: []string{"git", "status", "--porcelain"}, dir: on},
		missing: "apt-get install git", after: clear,
		check: func(aw, peer []byte) error {
			env, err := parseEnvelope(aw)
			if err != nil {
				return err
			}
			var d struct {
				Changes *struct {
					Recorded bool   `json:"recorded"`
					Reason   string `json:"reason"`
					Created  int    `json:"created"`
					Modified int    `json:"modified"`
					Deleted  int    `json:"deleted"`
				} `json:"changes"`
			}
			if err := json.Unmarshal(env.Data, &d); err != nil || d.Changes == nil || !d.Changes.Recorded {
				return fmt.Errorf("aw recorded no snapshot: %s", env.Data)
			}
			if n := d.Changes.Created + d.Changes.Modified + d.Changes.Deleted; n != 0 || len(bytes.TrimSpace(peer)) != 0 {
				return fmt.Errorf("the tree is not clean: aw saw %d changes, git %q", n, clip(string(peer)))
			}
			return nil
		}}
}

// undoFigure times planning the undo of a job that changed 10 files, and
// puts them back.
func (b *bench) undoFigure(root string) {
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") && len(files) < 10 && !strings.Contains(p, ".agentic") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	var cmds []string
	for _, f := range files {
		cmds = append(cmds, "echo '// changed' >> "+strconv.Quote(f))
	}
	line := strings.Join(cmds, "; ")
	out, err := b.awSide(root, "command", "run", "--line", line).run()
	if err != nil {
		logf("command-run-snapshot: the 10-file job failed: %v", err)
		return
	}
	env, err := parseEnvelope(out.stdout)
	var d struct {
		JobID string `json:"jobId"`
	}
	if err != nil || json.Unmarshal(env.Data, &d) != nil {
		logf("command-run-snapshot: no job id from the 10-file job")
		return
	}
	var times []time.Duration
	var tx string
	for i := 0; i < max(b.o.runs, 3); i++ {
		u, err := b.awSide(root, "command", "undo", d.JobID).run()
		if err != nil {
			logf("command-run-snapshot: undo failed: %v", err)
			return
		}
		times = append(times, u.elapsed)
		if e, err := parseEnvelope(u.stdout); err == nil {
			var t struct {
				TransactionID string `json:"transactionId"`
			}
			json.Unmarshal(e.Data, &t)
			tx = t.TransactionID
		}
	}
	start := time.Now()
	_, err = b.awSide(root, "edit", "commit", tx).run()
	logf("command-run-snapshot: undo of a 10-file job planned in %s (median of %d), committed in %s (%v)", dur(median(times)), len(times), dur(time.Since(start)), err)
	os.RemoveAll(filepath.Join(root, ".agentic", "transactions"))
	os.RemoveAll(filepath.Join(root, ".agentic", "jobs"))
}

// snapshotTree is the generated tree (a git repository) hard-linked into
// a new directory with a workspace that may run true and sh.
func (b *bench) snapshotTree(name, extra string) (string, error) {
	root := filepath.Join(b.d.dir, name)
	if _, err := os.Stat(filepath.Join(root, ".git", "aw-bench-done")); err != nil {
		os.RemoveAll(root)
		logf("preparing %s (a git repository of the generated tree)", name)
		// The tree's commit may have left git packing its objects in the
		// background; packed first, its .git holds still while it is copied.
		if out, err := exec.Command("git", "-C", b.d.tree, "gc", "-q").CombinedOutput(); err != nil {
			return "", fmt.Errorf("git gc: %v: %s", err, out)
		}
		if out, err := exec.Command("cp", "-al", b.d.tree, root).CombinedOutput(); err != nil {
			return "", fmt.Errorf("cp -al: %v: %s", err, out)
		}
		env := []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}
		steps := [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "tree"}}
		if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
			steps = [][]string{{"status", "--porcelain"}} // committed already: refresh the index
		}
		for _, args := range steps {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = root, append(append(os.Environ(), gitQuiet...), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return "", fmt.Errorf("git %v: %v: %s", args, err, out)
			}
		}
		os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(".agentic/\n"), 0o644)
		os.WriteFile(filepath.Join(root, ".git", "aw-bench-done"), nil, 0o644)
	}
	// The copy's files are hard links: its own .agentic/ must be a new
	// directory, or a config written here would change the original's.
	os.RemoveAll(filepath.Join(root, ".agentic"))
	os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
	// Diagnostics on write off: the undo figure is the transaction's, not a
	// language server's warm-up on a 50,000-file module.
	cfg := `{"permissionMode": 2, "lsp": {"diagnosticsOnWrite": false}, "commands": {"interpreter": "sh", "allow": ["true", "echo"]` + extra + `}}`
	return root, os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(cfg), 0o644)
}

// duOf is the bytes of the files under dir, as a human reads them.
func duOf(dir string) string {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// commandWorkspace makes a workspace under the data directory that may run
// true, with extra spliced into its commands settings.
func (b *bench) commandWorkspace(name, extra string) (string, error) {
	root := filepath.Join(b.d.dir, name)
	os.RemoveAll(root)
	if err := os.MkdirAll(filepath.Join(root, ".agentic"), 0o755); err != nil {
		return "", err
	}
	cfg := `{"permissionMode": 2, "commands": {"allow": ["true"]` + extra + `}}`
	return root, os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(cfg), 0o644)
}

// jobWithLog makes a workspace under the data directory holding one
// finished job whose stdout.log is size bytes (sparse, ending in 64 KiB
// of text); size 0 leaves the job as it ran. It returns the root and the
// job id.
func (b *bench) jobWithLog(name string, size int64) (string, string, error) {
	root, err := b.commandWorkspace(name, "")
	if err != nil {
		return "", "", err
	}
	run := exec.Command(b.aw, "--root", root, "-o", "json", "command", "run", "--", "true")
	run.Dir = root // --root may only narrow the working directory's workspace
	out, err := run.Output()
	if err != nil {
		return "", "", fmt.Errorf("aw command run -- true: %v", err)
	}
	env, err := parseEnvelope(out)
	if err != nil {
		return "", "", err
	}
	var d struct {
		JobID string `json:"jobId"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil || d.JobID == "" {
		return "", "", fmt.Errorf("no job id in %s", out)
	}
	if size == 0 {
		return root, d.JobID, nil
	}
	var text strings.Builder
	for i := 0; text.Len() < 64<<10; i++ {
		fmt.Fprintf(&text, "line %d of the job log: ok\n", i)
	}
	f, err := os.OpenFile(filepath.Join(root, ".agentic", "jobs", d.JobID, "stdout.log"), os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	if err := f.Truncate(size - int64(text.Len())); err != nil {
		return "", "", err
	}
	if _, err := f.WriteAt([]byte(text.String()), size-int64(text.Len())); err != nil {
		return "", "", err
	}
	return root, d.JobID, f.Close()
}

// checkTail: aw's stdoutTail is exactly what tail -c printed (the log's
// text is ASCII, so 2000 characters are 2000 bytes).
// checkOutput: aw's window is the end of what tail printed, and with the
// dropped bytes it accounts for the whole log.
func checkOutput(aw, peer []byte) error {
	env, err := parseEnvelope(aw)
	if err != nil {
		return err
	}
	var d struct {
		Stdout       string `json:"stdout"`
		DroppedBytes int64  `json:"droppedBytes"`
		StdoutBytes  int64  `json:"stdoutBytes"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	if len(d.Stdout) == 0 || !strings.HasSuffix(string(peer), d.Stdout) || d.DroppedBytes+int64(len(d.Stdout)) != d.StdoutBytes {
		return fmt.Errorf("aw's output (%d bytes, %d dropped of %d) is not the end of tail -c's (%d bytes)", len(d.Stdout), d.DroppedBytes, d.StdoutBytes, len(peer))
	}
	return nil
}

func checkTail(aw, peer []byte) error {
	env, err := parseEnvelope(aw)
	if err != nil {
		return err
	}
	var d struct {
		StdoutTail string `json:"stdoutTail"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	if d.StdoutTail != string(peer) {
		return fmt.Errorf("aw's tail (%d bytes) differs from tail -c's (%d bytes)", len(d.StdoutTail), len(peer))
	}
	return nil
}
