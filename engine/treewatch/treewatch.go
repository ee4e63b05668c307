// Package treewatch is the broker's watch of a workspace's tree: a watch
// on every directory a walk enters and a journal of the paths that changed
// since, so an index looks again at those paths alone instead of statting
// every file of the tree on every call (git's fsmonitor does this for
// git's index).
//
// A caller keeps the token of its last answer with what it built from the
// tree, and asks what changed since. The answer is either the paths (files
// and directories, root-relative) or Full: the watch cannot say (it is
// starting, it was restarted, it overflowed, no broker runs here), and the
// caller walks the tree as it would without a watch. Every answer carries
// a new token, or "" when nothing the caller does now is covered.
//
// What a watch cannot see: a write through a shared memory mapping, a
// change on a network file system made by another machine, a change to
// .git/info/exclude (.git is not watched). A .gitignore that changes
// restarts the watch, because what a walk enters changes with it.
package treewatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Changes is what changed in the tree since a token.
type Changes struct {
	// Token names this answer; "" when the watch covers nothing yet.
	Token string `json:"token"`
	// Full says the paths are not known: walk the whole tree.
	Full   bool   `json:"full"`
	Reason string `json:"reason,omitempty"` // why Full
	// Paths changed since the token, sorted (files and directories).
	Paths []string `json:"paths"`
}

// sinceCall is "tree.since".
type sinceCall struct {
	Token string `json:"token"`
}

// Since asks the workspace's broker (starting it when none runs) what
// changed since token. Any failure is a Full answer: the caller walks.
func Since(ctx context.Context, ws *workspace.Workspace, token string) Changes {
	if broker.PerCall(ws) {
		return Changes{Full: true, Reason: "no broker runs here to watch the tree (broker.mode per-call, or a platform without one)"}
	}
	var c Changes
	if err := broker.Call(ctx, ws, "tree.since", sinceCall{Token: token}, &c); err != nil {
		return Changes{Full: true, Reason: err.Error()}
	}
	return c
}

// fingerprint is what decides which directories a walk enters: a watch
// set up under other settings watches other directories.
func fingerprint(ws *workspace.Workspace) string {
	raw, _ := json.Marshal([]any{ws.Root, ws.Settings.DenyPaths, ws.Settings.AllowPaths, ws.Settings.List.Ignore})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// tokenOf and parseToken: a token is the watch's epoch and a sequence
// number in its journal.
func tokenOf(epoch string, seq uint64) string {
	return epoch + ":" + strconv.FormatUint(seq, 10)
}

func parseToken(t string) (epoch string, seq uint64, ok bool) {
	epoch, s, ok := strings.Cut(t, ":")
	if !ok {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(s, 10, 64)
	return epoch, seq, err == nil
}
