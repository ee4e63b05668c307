//go:build !unix

package broker

import (
	"context"
	"io/fs"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Supported reports whether this platform runs a broker.
const Supported = false

func unsupported() error {
	return envelope.Errorf(envelope.ToolDisabled, "the broker that holds language servers, debug sessions and interpreters needs unix sockets and file locks, which aw does not use on this platform yet: lsp calls start their server for each call instead")
}

// Call runs method in this process (no broker on this platform).
func Call(ctx context.Context, ws *workspace.Workspace, method string, params, result any) error {
	return callHere(ctx, ws, method, params, result)
}

// CallServing runs method in this process; nothing calls back.
func CallServing(ctx context.Context, ws *workspace.Workspace, method string, params, result any, serve Served) error {
	return callHere(ctx, ws, method, params, result)
}

// CallBack is not available on this platform.
func CallBack(ctx context.Context, method string, params, result any) error { return unsupported() }

// Query is not available on this platform: no broker runs.
func Query(ctx context.Context, ws *workspace.Workspace, method string, params, result any) (bool, error) {
	return false, nil
}

// Stop has nothing to stop on this platform.
func Stop(ctx context.Context, ws *workspace.Workspace) (Status, bool, error) {
	return Status{}, false, nil
}

// Serve is not available on this platform.
func Serve(root string, open func() (*workspace.Workspace, error), services map[string]Service) error {
	return unsupported()
}

// Processes lists nothing: no broker runs on this platform.
func Processes(ws *workspace.Workspace) []proc.Owned { return nil }

func ownedByMe(fs.FileInfo) bool { return true }

// EndStale has nothing to end on this platform.
func EndStale(ws *workspace.Workspace, dryRun bool) []proc.Owned { return nil }
