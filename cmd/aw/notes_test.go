package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestNotesSizeLimits(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		args  []string
		size  int // bytes of content, no trailing newline: the file gets one more
		code  int
		error string
	}{
		{"memory at the limit", []string{"--memory"}, 63_999, 0, ""},
		{"memory over the limit", []string{"--memory"}, 64_000, 2, "INVALID_INPUT"},
		{"note at the limit", []string{"big"}, 199_999, 0, ""},
		{"note over the limit", []string{"big"}, 200_000, 2, "INVALID_INPUT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			content := strings.Repeat("x", tc.size)
			before, _ := os.ReadFile(notePath(dir, tc.args))
			res := runAW(t, dir, []byte(content), append([]string{"notes", "write"}, tc.args...)...)
			if res.Code != tc.code {
				t.Fatalf("exit %d, want %d: %s", res.Code, tc.code, res.Stdout)
			}
			after, _ := os.ReadFile(notePath(dir, tc.args))
			if tc.error != "" {
				if got := res.field(t, ".error.code"); got != tc.error {
					t.Fatalf("error %v, want %s", got, tc.error)
				}
				if !bytes.Equal(before, after) {
					t.Fatalf("a refused write changed the file")
				}
				return
			}
			if len(after) != tc.size+1 {
				t.Fatalf("file has %d bytes, want %d", len(after), tc.size+1)
			}
		})
	}
	// An append that would cross the limit is refused and changes nothing.
	res := runAW(t, dir, []byte("more"), "notes", "append", "--memory")
	if res.Code != 2 {
		t.Fatalf("append over the memory limit: exit %d: %s", res.Code, res.Stdout)
	}
}

func notePath(dir string, args []string) string {
	if args[0] == "--memory" {
		return filepath.Join(dir, ".agentic", "MEMORY.md")
	}
	return filepath.Join(dir, ".agentic", "notes", args[0]+".md")
}

func TestNotesListLimit(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 25; i++ {
		runAW(t, dir, nil, "notes", "write", fmt.Sprintf("n%02d", i), "--content", "x")
	}
	res := runAW(t, dir, nil, "notes", "list", "--limit", "5")
	if n := len(res.field(t, ".data.notes").([]any)); n != 5 {
		t.Fatalf("%d notes listed, want 5", n)
	}
	if res.field(t, ".data.total").(float64) != 25 {
		t.Fatalf("total %v", res.field(t, ".data.total"))
	}
	if s := res.field(t, ".summary").(string); !strings.Contains(s, "showing 5") {
		t.Fatalf("summary %q lacks the showing clause", s)
	}
	full := runAW(t, dir, nil, "notes", "list")
	if n := len(full.field(t, ".retention.facts").([]any)); n != 20 {
		t.Fatalf("%d facts, want the first 20 names", n)
	}
	for _, bad := range []string{"201", "-1"} {
		if res := runAW(t, dir, nil, "notes", "list", "--limit", bad); res.Code != 2 {
			t.Fatalf("--limit %s: exit %d", bad, res.Code)
		}
	}
}

// TestNotesConcurrentAppend starts 50 appends at once on one note: every
// text survives, each newline-terminated, separated by blank lines.
func TestNotesConcurrentAppend(t *testing.T) {
	dir := t.TempDir()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(awBin, "notes", "append", "shared", "--content", fmt.Sprintf("entry %02d", i))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/.none")
			<-start
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("append %d: %v: %s", i, err, out)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "notes", "shared.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("note does not end with a newline")
	}
	parts := strings.Split(strings.TrimSuffix(text, "\n"), "\n\n")
	if len(parts) != n {
		t.Fatalf("%d entries survived, want %d:\n%s", len(parts), n, text)
	}
	seen := map[string]bool{}
	for _, p := range parts {
		seen[p] = true
	}
	for i := 0; i < n; i++ {
		if !seen[fmt.Sprintf("entry %02d", i)] {
			t.Errorf("entry %02d lost", i)
		}
	}
}

// TestNotesKillDuringWrite kills aw with SIGKILL at random moments while it
// rewrites a note: the file always holds one whole version, never a part.
func TestNotesKillDuringWrite(t *testing.T) {
	dir := t.TempDir()
	versions := map[string]bool{}
	for _, c := range []string{"A", "B"} {
		versions[strings.Repeat(c, 199_000)+"\n"] = true
	}
	first := strings.Repeat("A", 199_000)
	if res := runAW(t, dir, []byte(first), "notes", "write", "victim"); res.Code != 0 {
		t.Fatalf("setup: %s", res.Stdout)
	}
	path := filepath.Join(dir, ".agentic", "notes", "victim.md")
	rng := rand.New(rand.NewSource(1))
	killed := 0
	for i := 0; i < 40; i++ {
		content := strings.Repeat([]string{"A", "B"}[i%2], 199_000)
		cmd := exec.Command(awBin, "notes", "write", "victim")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/.none")
		cmd.Stdin = strings.NewReader(content)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(8000)) * time.Microsecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		if !versions[string(raw)] {
			t.Fatalf("after kill %d the note holds %d bytes that are neither version", i, len(raw))
		}
	}
	if killed == 0 {
		t.Fatalf("no process was killed: the test proved nothing")
	}
	// The store still works after the kills (no lock left behind).
	if res := runAW(t, dir, nil, "notes", "append", "victim", "--content", "after"); res.Code != 0 {
		t.Fatalf("append after kills: %s", res.Stdout)
	}
}
