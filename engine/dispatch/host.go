package dispatch

import (
	"github.com/agentic-workspace/aw/engine/host"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Host is the client of a host.workspace server (aw serve): aw's own
// noun, not a workspace_* tool. Every action reaches the network (the
// exec tier); none changes the local workspace, so none is gated: the
// server's token decides what a caller may write.
var Host = &Tool{Noun: "host", Short: "Read and write a host.workspace server's ground-truth files (aw serve)"}

func hostActions() []*Action {
	return []*Action{
		Bind(Host, "ls", workspace.TierExec, "", "List the workspace's files (metadata, no bodies), optionally by prefix or as of a run snapshot", host.Ls).Does(Network),
		Bind(Host, "get", workspace.TierExec, "", "Read one file: the head, a retained version, or as of a run snapshot", host.Get).Does(Network),
		Bind(Host, "put", workspace.TierExec, "", "Create or replace one file atomically (--if-match: only if unchanged since that etag)", host.Put).Does(Writes | Destroys | Network),
		Bind(Host, "rm", workspace.TierExec, "", "Delete one file (a tombstone: its history stays)", host.Rm).Does(Writes | Destroys | Network),
		Bind(Host, "history", workspace.TierExec, "", "List one file's retained versions, newest first", host.History).Does(Network),
		Bind(Host, "watch", workspace.TierExec, "", "Wait for workspace.updated events (resumable with --after)", host.Watch).Does(Network),
	}
}
