//go:build unix

package debug

import (
	"os/exec"
	"testing"

	"github.com/agentic-workspace/aw/engine/proc"
)

// adapterSession starts a real process standing in for an adapter that
// sends nothing (so no terminated event can settle the state first).
func adapterSession(t *testing.T) (*session, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{adapter: "test", state: Stopped, pid: cmd.Process.Pid,
		changed: make(chan struct{}), exited: make(chan struct{}), stderr: &proc.Tail{Max: 100}}
	go s.watch(cmd)
	return s, cmd
}

// The adapter leaving while aw ends the session is not a failure: the
// session ends in the state aw asked for, whichever comes first.
func TestEndWhenAdapterLeavesFirst(t *testing.T) {
	s, _ := adapterSession(t)
	s.end(Ended)
	if s.state != Ended {
		t.Fatalf("ended by aw, the session is %q (%s)", s.state, s.detail)
	}
}

// An adapter that dies by itself fails the session.
func TestAdapterDeathFails(t *testing.T) {
	s, cmd := adapterSession(t)
	cmd.Process.Kill()
	<-s.exited
	if s.state != Failed {
		t.Fatalf("the adapter died, the session is %q", s.state)
	}
}
