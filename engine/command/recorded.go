package command

import (
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Recorded loads a finished job and its snapshot record (aw command undo
// and diff), or says why there is none.
func Recorded(ws *workspace.Workspace, id string) (*Job, *snapshot.Record, error) {
	j, err := load(ws.Store, id)
	if err != nil {
		return nil, nil, err
	}
	if j.live() {
		return nil, nil, envelope.Errorf(envelope.TransactionState, "job %s is still running: its changes are recorded when it ends; wait with `aw command wait %s`", j.ID, j.ID).With("jobId", j.ID)
	}
	if j.Changes == nil || !j.Changes.Recorded {
		why := "it ran before aw recorded what commands change"
		if j.Changes != nil && j.Changes.Reason != "" {
			why = j.Changes.Reason
		}
		return nil, nil, envelope.Errorf(envelope.NotFound, "job %s has no record of what it changed: %s", j.ID, why).With("jobId", j.ID)
	}
	rec, found, err := snapshot.LoadRecord(ws, changesPath(ws.Store, j.ID))
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, envelope.Errorf(envelope.NotFound, "job %s's record of what it changed (%s) is gone", j.ID, ws.Store.Rel(changesPath(ws.Store, j.ID))).With("jobId", j.ID)
	}
	return j, rec, nil
}

// Display is how the job's command reads in messages.
func (j *Job) Display() string { return clip(display(j), 200) }
