package host

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// A sub-agent run reads the host's ground-truth files (identity,
// directives, memory index) as of its start: the run records a run start
// on the host, which answers with a snapshot, and the files are read from
// that snapshot once and kept with the run. Every pass of the run sees the
// same files, whatever is written meanwhile; the next run sees the writes.
// A run that names the host run it is a sub-agent of reads that run's
// snapshot instead (sub-agents inherit their parent's ground truth).

// Bounds of the ground truth a run keeps (and shows in each pass's brief).
const (
	GroundFiles     = 50    // files listed
	GroundFileChars = 8000  // content of one file
	GroundChars     = 24000 // content of all files
	groundTimeout   = 30 * time.Second
)

// GroundTruth is what a run read of the host at its start.
type GroundTruth struct {
	URL         string       `json:"url"`
	RunID       string       `json:"hostRunId"`
	ParentRunID string       `json:"parentRunId,omitempty"`
	SnapshotID  string       `json:"snapshotId"`
	Files       []GroundFile `json:"files"`
	// Unlisted counts the files past GroundFiles.
	Unlisted int `json:"unlisted,omitempty"`
}

// GroundFile is one file of the snapshot.
type GroundFile struct {
	Path    string `json:"path"`
	Version int64  `json:"version"`
	Bytes   int64  `json:"bytes"`
	Content string `json:"content,omitempty"`
	// Cut is set when Content is not the whole file (over a bound).
	Cut bool `json:"cut,omitempty"`
}

// StartRun records a run start on the workspace's host and reads the
// snapshot's files. No host configured (host.url empty): nil. A host
// configured but unreachable, or without a token, is an error: a run
// never starts without the ground truth its owner keeps.
func StartRun(ctx context.Context, ws *workspace.Workspace, parent string) (*GroundTruth, error) {
	if ws.Settings.Host.URL == "" {
		if parent != "" {
			return nil, envelope.Errorf(envelope.InvalidInput, "host_parent_run_id needs a host: a human sets host.url first (`aw config set host.url URL`)")
		}
		return nil, nil
	}
	c, err := client(ws, "")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, groundTimeout)
	defer cancel()
	var body any
	if parent != "" {
		body = map[string]string{"parentRunId": parent}
	}
	var run Run
	if _, err := c.do(ctx, "POST", "/v1/host/runs", nil, body, &run); err != nil {
		return nil, fmt.Errorf("%w (the run reads the host's files as of its start)", err)
	}
	g := &GroundTruth{URL: c.URL, RunID: run.RunID, ParentRunID: run.ParentRunID, SnapshotID: run.SnapshotID, Files: []GroundFile{}}
	metas, err := c.List(ctx, "", run.SnapshotID)
	if err != nil {
		return nil, err
	}
	if len(metas) > GroundFiles {
		g.Unlisted, metas = len(metas)-GroundFiles, metas[:GroundFiles]
	}
	left := GroundChars
	for _, m := range metas {
		gf := GroundFile{Path: m.Path, Version: m.Version, Bytes: m.Bytes}
		if left > 0 {
			f, err := c.Get(ctx, m.Path, 0, run.SnapshotID)
			if err != nil {
				return nil, err
			}
			limit := min(GroundFileChars, left)
			gf.Content, gf.Cut = envelope.Clip(f.Content, limit), len(f.Content) > limit
			left -= len(gf.Content)
		} else {
			gf.Cut = m.Bytes > 0
		}
		g.Files = append(g.Files, gf)
	}
	return g, nil
}

// Brief is the ground truth as a pass's brief shows it.
func (g *GroundTruth) Brief() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nGround-truth files of the workspace's host (%s, snapshot %s, read at this run's start; later writes are not in it):\n", g.URL, g.SnapshotID)
	if len(g.Files) == 0 {
		b.WriteString("(none)\n")
	}
	for _, f := range g.Files {
		fmt.Fprintf(&b, "--- %s (version %d, %d bytes) ---\n", f.Path, f.Version, f.Bytes)
		if f.Content != "" {
			b.WriteString(f.Content)
			if !strings.HasSuffix(f.Content, "\n") {
				b.WriteByte('\n')
			}
		}
		if f.Cut {
			b.WriteString("[cut: over this brief's bound]\n")
		}
	}
	if g.Unlisted > 0 {
		fmt.Fprintf(&b, "… and %d more files.\n", g.Unlisted)
	}
	return b.String()
}
