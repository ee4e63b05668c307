package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestTablesFitTheTerminal: on an 80-column terminal no line aw prints is
// wider than the screen, for the views with the widest data, on a real
// repository with long names.
func TestTablesFitTheTerminal(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 0, "commands": {"allow": ["echo"]}}`)
	long := strings.Repeat("a-very-long-directory-name-", 4)
	write(t, dir, long+"/"+strings.Repeat("file-with-a-long-name-", 3)+".txt", "needle "+strings.Repeat("wide text ", 30)+"\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "a commit whose subject is long enough to reach well past eighty columns on any screen")
	write(t, dir, "a.txt", "changed "+strings.Repeat("x", 200)+"\n")
	runAW(t, dir, nil, "command", "run", "--", "echo", strings.Repeat("staged-argument ", 12)) // a pending approval
	for _, args := range [][]string{
		{"inspect", "overview"},
		{"inspect", "list", "."},
		{"inspect", "search", "needle"},
		{"inspect", "read", "a.txt"},
		{"approval", "list"},
		{"vcs", "log"},
		{"vcs", "status"},
		{"vcs", "diff"},
		{"config", "list"},
	} {
		out := onPty(t, 80, dir, gitEnv, nil, "", args...)
		text := strings.ReplaceAll(string(out), "\r\n", "\n")
		lines := strings.Split(text, "\n")
		if len(lines) < 2 {
			t.Errorf("aw %s printed almost nothing: %q", strings.Join(args, " "), text)
		}
		for _, l := range lines {
			if w := runewidth.StringWidth(l); w > 80 {
				t.Errorf("aw %s: a line of %d columns on an 80-column terminal:\n%s", strings.Join(args, " "), w, l)
				break
			}
		}
	}
}

// TestPager: table output longer than the terminal goes through $PAGER;
// short output, --no-pager and output that is not a terminal do not.
func TestPager(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 90; i++ {
		write(t, dir, fmt.Sprintf("f%02d.txt", i), "x\n")
	}
	pager := filepath.Join(t.TempDir(), "pager")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\necho PAGED-BY-TEST\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PAGER=" + pager}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "list", ".")); !strings.Contains(out, "PAGED-BY-TEST") || !strings.Contains(out, "f89.txt") {
		t.Errorf("a long listing was not paged:\n%s", out)
	}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "list", ".", "--no-pager")); strings.Contains(out, "PAGED-BY-TEST") || !strings.Contains(out, "f89.txt") {
		t.Errorf("--no-pager paged:\n%s", out)
	}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "stat", "f01.txt")); strings.Contains(out, "PAGED-BY-TEST") {
		t.Errorf("a short result was paged:\n%s", out)
	}
	if r := runAWEnv(t, dir, nil, env, "inspect", "list", "."); strings.Contains(string(r.Stdout), "PAGED-BY-TEST") {
		t.Error("output to a pipe was paged")
	}
}

// TestColor: diffs are colored on a terminal, never with NO_COLOR, with
// --color never or off a terminal, and always with --color always; JSON
// is never colored.
func TestColor(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "one\ntwo\n")
	pre := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"replace","path":"a.txt","search":"two","replacement":"2"}`)
	tx := pre.field(t, ".data.transactionId").(string)
	green := "\x1b[32m+2"
	if out := string(onPty(t, 120, dir, []string{"NO_COLOR="}, nil, "", "edit", "show", tx)); !strings.Contains(out, green) || !strings.Contains(out, "\x1b[31m-two") {
		t.Errorf("no colored diff on a terminal:\n%q", out)
	}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, nil}, // the pty tests' NO_COLOR=1
		{[]string{"NO_COLOR="}, []string{"--color", "never"}},
	} {
		if out := string(onPty(t, 120, dir, c.env, nil, "", append([]string{"edit", "show", tx}, c.args...)...)); strings.Contains(out, "\x1b[3") {
			t.Errorf("%v %v: colored:\n%q", c.env, c.args, out)
		}
	}
	if out := runRaw(t, dir, "edit", "show", tx, "-o", "table", "--color", "always"); !strings.Contains(out, green) {
		t.Errorf("--color always off a terminal: %q", out)
	}
	if out := runRaw(t, dir, "edit", "show", tx, "-o", "table"); strings.Contains(out, "\x1b") {
		t.Errorf("colored off a terminal: %q", out)
	}
	if r := runAW(t, dir, nil, "edit", "show", tx, "--color", "always"); strings.Contains(string(r.Stdout), "\x1b") {
		t.Errorf("JSON colored: %q", r.Stdout)
	}
	if r := runAW(t, dir, nil, "edit", "show", tx, "--color", "rainbow"); r.Code != 2 {
		t.Errorf("--color rainbow: exit %d", r.Code)
	}
}
