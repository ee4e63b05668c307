package broker

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// StatusRequest is `aw broker status`.
type StatusRequest struct{}

// StopRequest is `aw broker stop`.
type StopRequest struct{}

// StatusAction reports the workspace's broker and what it holds, without
// starting one.
func StatusAction(ctx context.Context, ws *workspace.Workspace, _ *StatusRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var st Status
	running, err := Query(ctx, ws, "broker.status", nil, &st)
	if err != nil {
		return envelope.Envelope{}, err
	}
	st.Running = running
	st.IdleLimit = ws.Settings.Broker.IdleSeconds
	if st.Held == nil {
		st.Held = []Held{}
	}
	if st.Socket == "" && Supported {
		st.Socket, _ = SocketPath(ws.Root, os.Getenv)
	}
	var env envelope.Envelope
	if PerCall(ws) {
		st.Mode = "per-call"
		env = envelope.New("", "no broker: "+perCallWhy(ws)+"; each lsp call starts its language server and ends it, and the debugger and eval are not available", st)
		env.Fact("broker: per-call")
		return env, nil
	}
	st.Mode = "daemon"
	if !running {
		env = envelope.New("", "broker is not running (the next call that needs a language server, the debugger or eval starts it)", st)
		env.Fact("broker: not running")
		return env, nil
	}
	env = envelope.New("", fmt.Sprintf("broker pid %d, up %ds, idle %ds of %ds, holding %d", st.Pid, st.AgeSeconds, st.IdleSeconds, st.IdleLimit, len(st.Held)), st)
	env.Fact("broker: pid %d", st.Pid)
	for _, h := range st.Held {
		env.Fact("%s %s %s pid %d (%s)", h.Service, h.Kind, h.Key, h.Pid, h.State)
	}
	return env, nil
}

// StopAction ends the workspace's broker and every resource it holds; a
// broker that does not run is a declared no-op.
func StopAction(ctx context.Context, ws *workspace.Workspace, _ *StopRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	st, running, err := Stop(ctx, ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if st.Held == nil {
		st.Held = []Held{}
	}
	st.Running = false
	if !running {
		env := envelope.New("", "broker was not running: nothing to stop", st)
		env.Fact("broker: not running")
		return env, nil
	}
	env := envelope.New("", fmt.Sprintf("stopped the broker (pid %d) and the %d resources it held", st.Pid, len(st.Held)), st)
	env.Fact("broker stopped: pid %d", st.Pid)
	return env, nil
}
