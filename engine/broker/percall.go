package broker

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Services makes the services a broker hosts, by name; the command layer
// sets it. Where no broker runs (broker.mode per-call, or a platform
// without unix sockets), a call runs its service in the calling process
// and ends it with the call.
var Services func() map[string]Service

// Standalone is a service whose calls need nothing an earlier call left
// (a language server answers a definition from the files alone): it can
// run per call. The others (a debug session, an interpreter's variables)
// exist only in a broker.
type Standalone interface {
	Standalone() bool
}

// PerCall reports whether calls in ws run without a broker.
func PerCall(ws *workspace.Workspace) bool {
	return !Supported || ws.Settings.Broker.Mode == "per-call"
}

// perCallWhy says why no broker runs.
func perCallWhy(ws *workspace.Workspace) string {
	if !Supported {
		return "this platform has no broker (aw uses unix sockets and file locks for it)"
	}
	return "broker.mode is per-call (a human sets `aw config set broker.mode daemon` for the broker)"
}

// callHere runs method in this process: a fresh service, one call, its end.
func callHere(ctx context.Context, ws *workspace.Workspace, method string, params, result any) error {
	name, sub, _ := strings.Cut(method, ".")
	var s Service
	if Services != nil {
		s = Services()[name]
	}
	if s == nil {
		return envelope.Errorf(envelope.Internal, "no service %q to run %s", name, method)
	}
	defer s.Close()
	if st, ok := s.(Standalone); !ok || !st.Standalone() {
		return envelope.Errorf(envelope.ToolDisabled, "%s keeps its state between calls in the workspace's broker, and none runs here: %s", name, perCallWhy(ws)).With("setting", "broker.mode")
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "%v", err)
	}
	out, err := s.Call(ctx, ws, sub, raw)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if raw, err = json.Marshal(out); err == nil {
		err = json.Unmarshal(raw, result)
	}
	if err != nil {
		return envelope.Errorf(envelope.Internal, "%s answered what it cannot read back: %v", method, err)
	}
	return nil
}
