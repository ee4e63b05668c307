package command

import (
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Processes lists the processes of the workspace's running jobs: each
// command and the supervisor waiting for it.
func Processes(ws *workspace.Workspace) []proc.Owned {
	var out []proc.Owned
	eachLive(ws, func(j *Job) {
		age := int64(time.Since(j.StartedAt) / time.Second)
		if j.Pid > 0 && groupAlive(j.Pid) {
			out = append(out, proc.Owned{Kind: "job", ID: j.ID, Pid: j.Pid, AgeSeconds: age})
		}
		if j.SupervisorPid > 0 && j.supervisorAlive() {
			out = append(out, proc.Owned{Kind: "job-supervisor", ID: j.ID, Pid: j.SupervisorPid, AgeSeconds: age})
		}
	})
	return out
}

// EndStale ends the process trees of jobs whose supervisor is gone (the
// record can no longer be kept true by anyone) and records them
// cancelled. With dryRun it only reports them.
func EndStale(ws *workspace.Workspace, dryRun bool) []proc.Owned {
	return endStale(ws, dryRun, func(*Job) bool { return true })
}

// EndOrphansOf ends, as EndStale does, the stale jobs that process pid
// launched (a run's supervisor that died: its unfinished call must be over
// before the run is resumed).
func EndOrphansOf(ws *workspace.Workspace, pid int) []proc.Owned {
	return endStale(ws, false, func(j *Job) bool { return j.LauncherPid == pid || j.SupervisorPid == pid })
}

func endStale(ws *workspace.Workspace, dryRun bool, which func(*Job) bool) []proc.Owned {
	var out []proc.Owned
	eachLive(ws, func(j *Job) {
		if !which(j) || j.supervisorAlive() || j.Pid <= 0 || !groupAlive(j.Pid) {
			return
		}
		out = append(out, proc.Owned{Kind: "job", ID: j.ID, Pid: j.Pid, AgeSeconds: int64(time.Since(j.StartedAt) / time.Second)})
		if dryRun {
			return
		}
		killTree(j.Pid)
		now := time.Now().UTC()
		update(ws.Store, j.ID, func(cur *Job) error {
			cur.Status, cur.Cancelled, cur.EndedAt = Cancelled, true, &now
			cur.DurationMs = now.Sub(cur.StartedAt).Milliseconds()
			if cur.Error == "" {
				cur.Error = "ended by aw gc: its supervisor was gone"
			}
			return nil
		})
	})
	return out
}

// eachLive calls fn with every job recorded as running (or orphaned: its
// supervisor gone with the process perhaps still running).
func eachLive(ws *workspace.Workspace, fn func(*Job)) {
	list, err := ids(ws.Store)
	if err != nil {
		return
	}
	for _, id := range list {
		var j Job
		if found, err := ws.Store.ReadJSON(jobPath(ws.Store, id), &j); err != nil || !found {
			continue
		}
		if j.live() || j.Status == Orphaned {
			fn(&j)
		}
	}
}
