package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The vcs rows: aw vcs against git on the same repositories.
// vcs-large is a 72,000-file checkout five levels deep with 200 commits of
// history (packed); vcs-node-modules is a small repository with 100,000
// files under an ignored node_modules. Status rows compare porcelain
// letters; log rows compare hashes; the diff row compares the patch text.

func vcsRowNames() []string {
	return []string{"vcs-status-clean", "vcs-status-node-modules", "vcs-log-50", "vcs-log-path", "vcs-diff"}
}

const vcsLogPath = "src/mod07/pkg01/part1"

func vcsRows(b *bench) []row {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	if b.o.rows != "" && !strings.Contains(b.o.rows, "vcs-") {
		return nil // generating the repositories takes minutes: only when asked
	}
	large, err := b.vcsRepo("vcs-large", 30, 200, 0)
	if err != nil {
		fatalf("preparing the large repository: %v", err)
	}
	nm, err := b.vcsRepo("vcs-node-modules", 2, 5, 100000)
	if err != nil {
		fatalf("preparing the node_modules repository: %v", err)
	}
	gitSide := func(dir string, args ...string) side {
		return side{name: "git " + strings.Join(args, " "), argv: append([]string{"git"}, args...), dir: dir}
	}
	dirty := filepath.Join(b.d.dir, "vcs-large")
	return []row{
		{name: "vcs-status-clean", target: 3, showRSS: true,
			aw: b.awSide(large, "vcs", "status"), peer: gitSide(large, "status", "--porcelain"), check: checkPorcelain},
		{name: "vcs-status-node-modules", target: 3, showRSS: true,
			aw: b.awSide(nm, "vcs", "status"), peer: gitSide(nm, "status", "--porcelain"), check: checkPorcelain},
		{name: "vcs-log-50", target: 2,
			aw: b.awSide(large, "vcs", "log", "--limit", "50"), peer: gitSide(large, "log", "-n", "50", "--format=%H"), check: checkHashes},
		{name: "vcs-log-path", target: 5,
			aw: b.awSide(large, "vcs", "log", "--limit", "20", "--", vcsLogPath), peer: gitSide(large, "log", "-n", "20", "--format=%H", "--", vcsLogPath), check: checkHashes},
		{name: "vcs-diff", target: 3, showRSS: true, after: func() { os.RemoveAll(filepath.Join(dirty, ".agentic", "artifacts")) },
			aw: b.awSide(dirty, "vcs", "diff"), peer: gitSide(dirty, "diff"), check: checkPatch(dirty)},
	}
}

// vcsRepo generates (once) a repository of mods*12*4*50 files with
// history commits, and nodeModules files under an ignored node_modules;
// vcs-large also gets 100 modified files for the diff row.
func (b *bench) vcsRepo(name string, mods, history, nodeModules int) (string, error) {
	root := filepath.Join(b.d.dir, name)
	if _, err := os.Stat(filepath.Join(root, ".git", "aw-bench-done")); err == nil {
		return root, nil
	}
	os.RemoveAll(root)
	logf("generating %s (%d files, %d commits, %d ignored)", name, mods*12*4*50, history, nodeModules)
	for m := 0; m < mods; m++ {
		for p := 0; p < 12; p++ {
			for q := 0; q < 4; q++ {
				dir := filepath.Join(root, "src", fmt.Sprintf("mod%02d", m), fmt.Sprintf("pkg%02d", p), fmt.Sprintf("part%d", q))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return "", err
				}
				for f := 0; f < 50; f++ {
					body := fmt.Sprintf("package part%d\n\n// file %d %d %d %d\nfunc F%d(n int) int {\n\treturn n + %d\n}\n", q, m, p, q, f, f, (m*7+p*3+f)%1000)
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", f)), []byte(body), 0o644); err != nil {
						return "", err
					}
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n*.log\n.agentic/\n"), 0o644); err != nil {
		return "", err
	}
	for i := 0; i < nodeModules; i++ {
		dir := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%03d", i/1000), "lib", fmt.Sprintf("d%d", i%1000/100))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", i%100)), []byte("module.exports = 1\n"), 0o644); err != nil {
			return "", err
		}
	}
	env := []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}
	run := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = root, append(append(os.Environ(), gitQuiet...), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	if err := run("init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	if err := run("add", "-A"); err != nil {
		return "", err
	}
	if err := run("commit", "-q", "-m", "initial"); err != nil {
		return "", err
	}
	for i := 0; i < history; i++ {
		var files []string
		for k := 1; k <= 3; k++ {
			f := fmt.Sprintf("src/mod%02d/pkg%02d/part%d/file%02d.go", (i*7+k)%mods, (i*3+k)%12, (i+k)%4, (i*11+k)%50)
			fh, err := os.OpenFile(filepath.Join(root, f), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(fh, "// change %d %d\n", i, k)
			fh.Close()
			files = append(files, f)
		}
		if err := run(append([]string{"add"}, files...)...); err != nil {
			return "", err
		}
		if err := run("commit", "-q", "-m", fmt.Sprintf("change %d: touch three files", i)); err != nil {
			return "", err
		}
	}
	if err := run("gc", "-q"); err != nil {
		return "", err
	}
	if name == "vcs-large" {
		// The diff row's worktree changes: 100 files edited in the middle.
		for i := 0; i < 100; i++ {
			f := filepath.Join(root, "src", fmt.Sprintf("mod%02d", i%mods), fmt.Sprintf("pkg%02d", i%12), "part2", fmt.Sprintf("file%02d.go", i%50))
			raw, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			os.WriteFile(f, []byte(strings.Replace(string(raw), "return n +", "return n -", 1)), 0o644)
		}
		// A status in between refreshes git's index, as a user's would.
		if err := run("status", "--porcelain"); err != nil {
			return "", err
		}
	}
	return root, os.WriteFile(filepath.Join(root, ".git", "aw-bench-done"), nil, 0o644)
}

// checkPorcelain compares aw's status files with `git status --porcelain`.
func checkPorcelain(aw, peer []byte) error {
	env, err := parseEnvelope(aw)
	if err != nil {
		return err
	}
	var d struct {
		Files []struct{ Path, Index, Worktree, OrigPath string }
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	var got strings.Builder
	for _, f := range d.Files {
		got.WriteString(f.Index + f.Worktree + " " + f.Path + "\n")
	}
	if got.String() != string(peer) {
		return fmt.Errorf("aw's status (%d paths) differs from git's: %q vs %q", len(d.Files), clip(got.String()), clip(string(peer)))
	}
	return nil
}

// checkHashes compares aw's log with `git log --format=%H`.
func checkHashes(aw, peer []byte) error {
	env, err := parseEnvelope(aw)
	if err != nil {
		return err
	}
	var d struct {
		Commits []struct{ Hash string }
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	want := strings.Fields(string(peer))
	if len(want) == 0 {
		return fmt.Errorf("git log printed nothing: the data set is wrong")
	}
	if len(d.Commits) != len(want) {
		return fmt.Errorf("aw lists %d commits, git %d", len(d.Commits), len(want))
	}
	for i, c := range d.Commits {
		if c.Hash != want[i] {
			return fmt.Errorf("commit %d: aw %s, git %s", i, c.Hash, want[i])
		}
	}
	return nil
}

// checkPatch compares the diff text (whole, from the artifact when it was
// bounded) with git diff's.
func checkPatch(dir string) func(aw, peer []byte) error {
	return func(aw, peer []byte) error {
		env, err := parseEnvelope(aw)
		if err != nil {
			return err
		}
		var d struct {
			Diff      string
			Truncated bool
		}
		if err := json.Unmarshal(env.Data, &d); err != nil {
			return err
		}
		text := d.Diff
		if d.Truncated {
			if len(env.Artifacts) == 0 {
				return fmt.Errorf("a bounded diff without an artifact")
			}
			raw, err := os.ReadFile(filepath.Join(dir, env.Artifacts[0].Path))
			if err != nil {
				return err
			}
			text = string(raw)
		}
		if len(peer) == 0 {
			return fmt.Errorf("git diff printed nothing: the data set is wrong")
		}
		if text != string(peer) {
			return fmt.Errorf("aw's diff (%d bytes) differs from git diff's (%d bytes)", len(text), len(peer))
		}
		return nil
	}
}
