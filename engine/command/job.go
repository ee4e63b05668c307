package command

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/store"
)

// Job statuses, as command.status reports them. starting is the short window
// between the record and the process; callers see it as running.
const (
	Starting  = "starting"
	Running   = "running"
	Exited    = "exited"    // exit code 0
	Failed    = "failed"    // a non-zero exit code, or the process could not start
	Killed    = "killed"    // a signal aw did not send
	TimedOut  = "timed_out" // timeout_seconds elapsed: aw killed the tree
	Cancelled = "cancelled" // aw command cancel (or a signal to the aw that ran it)
	Orphaned  = "orphaned"  // the supervisor vanished before recording the end
)

// Job is .agentic/jobs/<job_id>/job.json. id, status, executable, exitCode
// and startedAt are read by `aw inspect changes`: keep their names.
type Job struct {
	ID                 string   `json:"id"`
	Action             string   `json:"action"` // run or test (foreground), start (background)
	Status             string   `json:"status"`
	Executable         string   `json:"executable"`
	Args               []string `json:"args"`
	Line               string   `json:"line,omitempty"`
	Shell              bool     `json:"shell,omitempty"` // run through /bin/sh -c Line
	Argv               []string `json:"argv"`            // what runs; argv[0] is resolvedExecutable
	ResolvedExecutable string   `json:"resolvedExecutable"`
	// Spawn is what is executed: Argv inside the OS sandbox's wrapper
	// (empty for a job recorded before the sandbox existed: Argv runs).
	Spawn          []string        `json:"spawn,omitempty"`
	Sandbox        *sandbox.Report `json:"sandbox,omitempty"`
	Cwd            string          `json:"cwd"`            // root-relative
	TimeoutSeconds float64         `json:"timeoutSeconds"` // 0: no timer (start only)
	ExitCode       *int            `json:"exitCode"`
	Signal         string          `json:"signal,omitempty"`
	TimedOut       bool            `json:"timedOut"`
	Cancelled      bool            `json:"cancelled"`
	CreatedAt      time.Time       `json:"createdAt"`
	StartedAt      time.Time       `json:"startedAt"`
	EndedAt        *time.Time      `json:"endedAt"`
	DurationMs     int64           `json:"durationMs"`

	// Pid is the command's process, leader of its own process group (the
	// group id is the same number); ProcessStart tells it from a later
	// process that reused the pid.
	Pid          int    `json:"pid,omitempty"`
	ProcessStart uint64 `json:"processStart,omitempty"`
	// The supervisor waits for the process and records its end: the
	// detached `aw command supervise` of a start, the aw process itself for
	// a run. Until it claims the job the launcher stands for it.
	SupervisorPid   int    `json:"supervisorPid,omitempty"`
	SupervisorStart uint64 `json:"supervisorStart,omitempty"`
	LauncherPid     int    `json:"launcherPid,omitempty"`
	LauncherStart   uint64 `json:"launcherStart,omitempty"`
	// CancelRequested is set by `aw command cancel` before it signals the
	// group, so the supervisor records cancelled rather than killed.
	CancelRequested bool `json:"cancelRequested,omitempty"`

	Stdout     LogFile `json:"stdout"`
	Stderr     LogFile `json:"stderr"`
	ApprovalID string  `json:"approvalId,omitempty"`
	Error      string  `json:"error,omitempty"`

	// SubmittedLine is the caller's text when Line, the checker's canonical
	// re-print that /bin/sh runs, differs from it.
	SubmittedLine string `json:"submittedLine,omitempty"`

	// Changes is what the job did to the workspace (its snapshot), set
	// when it ends; the whole list is changes.json beside job.json.
	Changes *snapshot.Summary `json:"changes,omitempty"`
	// ConfigHome is the launcher's user configuration directory, so a
	// detached supervisor sees the settings the launcher saw.
	ConfigHome string `json:"configHome,omitempty"`
}

// changesPath is a job's snapshot record.
func changesPath(s *store.Store, id string) string { return s.Path("jobs", id, "changes.json") }

// LogFile is one of a job's logs. Bytes and SHA256 are recorded when the
// job ends; a running job's log is still growing.
type LogFile struct {
	Path   string `json:"path"` // root-relative
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
}

// live reports whether the record says a process may be running.
func (j *Job) live() bool { return j.Status == Starting || j.Status == Running }

// shownStatus is the status callers see: starting reads as running.
func (j *Job) shownStatus() string {
	if j.Status == Starting {
		return Running
	}
	return j.Status
}

// supervisorAlive reports whether whoever is responsible for recording the
// job's end still exists.
func (j *Job) supervisorAlive() bool {
	if j.SupervisorPid != 0 {
		return proc.Alive(j.SupervisorPid, j.SupervisorStart)
	}
	return proc.Alive(j.LauncherPid, j.LauncherStart)
}

func jobsDir(s *store.Store) string            { return s.Path("jobs") }
func jobDir(s *store.Store, id string) string  { return s.Path("jobs", id) }
func jobPath(s *store.Store, id string) string { return s.Path("jobs", id, "job.json") }

// load reads a job record. An id that is not a job id, or names no job, is
// NOT_FOUND with the way to list jobs.
func load(s *store.Store, id string) (*Job, error) {
	if !store.ValidID(id, "job") {
		return nil, envelope.Errorf(envelope.NotFound,
			"%q is not a job id (job_ followed by 23 characters); `aw command list` lists the jobs", id).With("jobId", id)
	}
	var j Job
	found, err := s.ReadJSON(jobPath(s, id), &j)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, envelope.Errorf(envelope.NotFound,
			"no job %s in this workspace; `aw command list` lists the jobs", id).With("jobId", id)
	}
	return &j, nil
}

// update is a read-modify-write of one job record under the store lock.
func update(s *store.Store, id string, fn func(j *Job) error) (*Job, error) {
	var out Job
	err := store.Update(s, jobPath(s, id), func(j *Job) error {
		if j.ID == "" {
			return envelope.Errorf(envelope.NotFound, "job %s disappeared from .agentic/jobs/; `aw command list` lists the jobs", id).With("jobId", id)
		}
		if err := fn(j); err != nil {
			return err
		}
		out = *j
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// refresh turns a live record whose supervisor is gone into orphaned. The
// record is re-read under the lock, so a supervisor that wrote the end and
// exited in between is not mistaken for a lost one.
func refresh(s *store.Store, j *Job) (*Job, error) {
	if !j.live() || j.supervisorAlive() {
		return j, nil
	}
	return update(s, j.ID, func(cur *Job) error {
		if cur.live() && !cur.supervisorAlive() {
			cur.Status = Orphaned
			if cur.Error == "" {
				cur.Error = "the supervisor that waited for this job exited without recording its end (killed, or the machine restarted); the process may still be running"
			}
		}
		return nil
	})
}

// ids lists the job ids on disk, newest first (ids sort by creation time).
func ids(s *store.Store) ([]string, error) {
	entries, err := os.ReadDir(jobsDir(s))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, envelope.Errorf(envelope.Internal, "cannot list %s: %v; check permissions under .agentic/", s.Rel(jobsDir(s)), err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && store.ValidID(e.Name(), "job") {
			out = append(out, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out, nil
}

// hashLog measures a finished log: its size and SHA-256, streamed.
func hashLog(path string) (int64, string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, f, make([]byte, 256<<10))
	if err != nil {
		return n, ""
	}
	return n, hex.EncodeToString(h.Sum(nil))
}

// logAbs is the absolute path of a job log from its root-relative form.
func logAbs(s *store.Store, rel string) string {
	return filepath.Join(s.Root, filepath.FromSlash(rel))
}
