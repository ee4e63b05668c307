package main

import (
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
