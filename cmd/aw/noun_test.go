package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestNounWithoutAction: every noun that has actions, called without one
// (or with one it does not have) off a terminal, is a usage error a script
// can read: INVALID_INPUT, exit 2, naming the actions. On a terminal the
// bare noun prints its help instead.
func TestNounWithoutAction(t *testing.T) {
	dir := t.TempDir()
	nouns := []string{"inspect", "edit", "plan", "notes", "command", "policy", "tasks", "research", "vcs", "browser", "approval", "config"}
	for _, noun := range nouns {
		for _, args := range [][]string{{noun}, {noun, "no-such-action"}} {
			r := runAW(t, dir, nil, args...)
			if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
				t.Errorf("aw %s: exit %d, want 2 and INVALID_INPUT:\n%s", strings.Join(args, " "), r.Code, r.Stdout)
				continue
			}
			msg := r.field(t, ".error.message").(string)
			want := noun + " needs an action: the actions are "
			if len(args) == 2 {
				want = noun + ` has no action "no-such-action": the actions are `
			}
			if !strings.HasPrefix(msg, want) {
				t.Errorf("aw %s: message %q, want it to start %q", strings.Join(args, " "), msg, want)
			}
		}
	}
	screen := onPty(t, 80, dir, nil, nil, "", "tasks")
	if !bytes.Contains(screen, []byte("Usage:")) || bytes.Contains(screen, []byte(`"protocol"`)) {
		t.Errorf("aw tasks on a terminal should print its help, got:\n%s", screen)
	}
}
