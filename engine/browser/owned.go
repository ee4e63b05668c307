package browser

import (
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Processes lists the processes of the workspace's live sessions: each
// Chromium and its watchdog.
func Processes(ws *workspace.Workspace) []proc.Owned {
	list, _ := all(ws.Store)
	var out []proc.Owned
	for _, s := range list {
		if !alive(s.Pid, s.ProcessStart) {
			continue
		}
		age := int64(time.Since(s.CreatedAt) / time.Second)
		out = append(out, proc.Owned{Kind: "browser", ID: s.ID, Pid: s.Pid, AgeSeconds: age})
		if alive(s.WatchdogPid, s.WatchdogStart) {
			out = append(out, proc.Owned{Kind: "browser-watchdog", ID: s.ID, Pid: s.WatchdogPid, AgeSeconds: age})
		}
	}
	return out
}

// EndStale ends the Chromium processes whose profile lies in this
// workspace but which no session record names (the record was removed,
// and the watchdog that would have noticed was killed). With dryRun it
// only reports them. Sessions with a record are their watchdog's and the
// next browser call's to end; their files are gc's pruning's.
func EndStale(ws *workspace.Workspace, dryRun bool) []proc.Owned {
	var out []proc.Owned
	list, _ := all(ws.Store)
	recorded := map[string]bool{}
	for _, s := range list {
		recorded[s.ID] = true
	}
	for id, pids := range strays(sessionDir(ws.Store, "")) {
		if recorded[id] {
			continue
		}
		for _, pid := range pids {
			out = append(out, proc.Owned{Kind: "browser", ID: id, Pid: pid})
		}
		if !dryRun {
			terminate(0, sessionDir(ws.Store, id)+"/profile", 3*time.Second)
		}
	}
	return out
}
