// Package command runs commands as jobs (workspace_command): in the
// foreground, in the background, cancelled as a whole tree. Every run and start is checked by engine/policy before
// anything is spawned, then goes through the permission gate; the command
// runs in a process group of its own, with the environment the policy
// gives it, its output streamed to .agentic/jobs/<job_id>/ and its end
// recorded in job.json. A background job is waited for by a detached
// supervisor (aw re-executed as `aw command supervise`), so it outlives the
// aw that started it. The package never prints and never spawns anything
// the policy refused.
package command

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Request is the seed's argument object of run and start: an argv
// (executable and args, never through a shell) or a line.
type Request struct {
	Executable string   `json:"executable,omitempty" doc:"the program to run: a name on PATH (directories inside the workspace are never used) or a workspace path that commands.allow names; with args, or give line instead"`
	Args       []string `json:"args,omitempty" doc:"the program's arguments, one token each; no shell reads them"`
	Line       string   `json:"line,omitempty" doc:"a command line instead of executable and args: split into words (commands.interpreter none) or parsed as POSIX sh and run as its canonical re-print (sh)"`
	Cwd        string   `json:"cwd,omitempty" doc:"directory to run in, relative to the workspace root (default: the root)"`
	// TimeoutSeconds defaults to commands.maxSeconds and is capped by it;
	// 0 (start only) arms no timer.
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds before the process tree is killed (default and cap: commands.maxSeconds; start: 0 arms no timer)"`

	// resume, when set, is the call a staged approval resumes instead of
	// this request itself (command test resumes as a test).
	resume map[string]any
}

// StatusRequest asks for one job, with a tail of its logs.
type StatusRequest struct {
	JobID     string `json:"job_id" doc:"the job to report (a unique prefix of its id will do)"`
	TailChars *int   `json:"tail_chars,omitempty" doc:"characters from the end of each log, 100-20000 (default 2000 for a running job; a finished one is tailed only when given)"`
}

// CancelRequest names the job to stop, or all of them.
type CancelRequest struct {
	JobID string `json:"job_id,omitempty" doc:"the job to stop"`
	All   bool   `json:"all,omitempty" doc:"stop every running job of the workspace instead of one"`
}

// ListRequest bounds the listing.
type ListRequest struct {
	Limit int `json:"limit,omitempty" doc:"most jobs to list, newest first, 1-200 (default 20)"`
}

// Tail bounds of status, in characters.
const (
	MinTailChars     = 100
	MaxTailChars     = 20000
	DefaultTailChars = 2000
)

// Result is the data of run, start, status and cancel: the job, its exit and the tails of its logs.
type Result struct {
	JobID              string   `json:"jobId"`
	Action             string   `json:"action"`
	Status             string   `json:"status"`
	Executable         string   `json:"executable"`
	Args               []string `json:"args"`
	Line               string   `json:"line,omitempty"`
	Argv               []string `json:"argv"`
	ResolvedExecutable string   `json:"resolvedExecutable"`
	Cwd                string   `json:"cwd"`
	TimeoutSeconds     float64  `json:"timeoutSeconds"`
	// Sandbox is the OS sandbox the command ran in, what it enforced, or
	// none and why.
	Sandbox         *sandbox.Report `json:"sandbox,omitempty"`
	Pid             int             `json:"pid,omitempty"`
	ExitCode        *int            `json:"exitCode"`
	Signal          string          `json:"signal,omitempty"`
	TimedOut        bool            `json:"timedOut"`
	Cancelled       bool            `json:"cancelled"`
	StartedAt       time.Time       `json:"startedAt"`
	EndedAt         *time.Time      `json:"endedAt"`
	DurationMs      int64           `json:"durationMs"`
	StdoutTail      *string         `json:"stdoutTail,omitempty"`
	StderrTail      *string         `json:"stderrTail,omitempty"`
	StdoutTruncated bool            `json:"stdoutTruncated,omitempty"`
	StderrTruncated bool            `json:"stderrTruncated,omitempty"`
	StdoutBytes     int64           `json:"stdoutBytes"`
	StderrBytes     int64           `json:"stderrBytes"`
	StdoutPath      string          `json:"stdoutPath"`
	StderrPath      string          `json:"stderrPath"`
	Error           string          `json:"error,omitempty"`
	// AlreadyFinished is set by a cancel that found no process to stop.
	AlreadyFinished bool `json:"alreadyFinished,omitempty"`
	// SubmittedLine is the caller's line when Line (what /bin/sh ran: the
	// checker's canonical re-print) differs from it.
	SubmittedLine string `json:"submittedLine,omitempty"`
	// Changes is what the job did to the workspace: counts and the first
	// paths; undo with `aw command undo`, see it with `aw command diff`.
	Changes *snapshot.Summary `json:"changes,omitempty"`
	// Diagnostics are those the files the command changed newly
	// introduced (engine/lsp).
	Diagnostics any `json:"diagnostics,omitempty"`
}

// SetDiagnostics folds a run's new diagnostics into its result.
func (r *Result) SetDiagnostics(d any) { r.Diagnostics = d }

// Run runs a command in the foreground and returns its exit code and the
// tails of its output. A command that ran is ok whatever its exit code:
// a failing test is data, not an error.
func Run(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	j, capped, staged, err := foreground(ws, req, "run")
	if err != nil || staged != nil {
		return deref(staged), err
	}
	return runEnvelope(ws, j, capped)
}

// foreground is the one path of a foreground command (run, test): the
// checks and the gate of prepare, the job record, the process to its end.
// A staged call returns its envelope instead of a job.
func foreground(ws *workspace.Workspace, req *Request, action string) (j *Job, capped bool, staged *envelope.Envelope, err error) {
	pre := snapshot.Preload(ws)
	p, staged, err := prepare(ws, req, action)
	if err != nil || staged != nil {
		return nil, false, staged, err
	}
	self := os.Getpid()
	p.job.SupervisorPid, p.job.SupervisorStart = self, proc.Start(self)
	if err := create(ws, p.job); err != nil {
		return nil, false, nil, err
	}
	var consumeErr error
	snap := snapshot.Begin(context.Background(), ws, pre)
	j, err = execute(ws.Store, p.job.ID, spawnEnv(ws, p.job.ID), snap, func(pid int, err error) {
		if err == nil {
			consumeErr = gate.Consume(ws, p.approval)
		}
	})
	if err == nil {
		err = consumeErr
	}
	if err != nil {
		return nil, false, nil, err
	}
	return j, p.capped, nil, nil
}

// Start starts a background job and returns at once with its id and pid.
// A detached supervisor waits for it and records its end.
func Start(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	p, staged, err := prepare(ws, req, "start")
	if err != nil || staged != nil {
		return deref(staged), err
	}
	if err := create(ws, p.job); err != nil {
		return envelope.Envelope{}, err
	}
	pid, err := launch(ws, p.job.ID, spawnEnv(ws, p.job.ID))
	if err != nil {
		now := time.Now().UTC()
		update(ws.Store, p.job.ID, func(cur *Job) error {
			if cur.Status == Starting {
				cur.Status, cur.EndedAt, cur.Error = Failed, &now, err.Error()
			}
			return nil
		})
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, p.approval); err != nil {
		return envelope.Envelope{}, err
	}
	j, err := load(ws.Store, p.job.ID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	j.Pid = pid
	r := result(ws.Store, j)
	r.Status = Running
	if j.Status != Starting && j.Status != Running {
		r.Status = j.Status // it already ended: say so
	}
	timeout := fmt.Sprintf("timeout %s", seconds(j.TimeoutSeconds))
	if j.TimeoutSeconds == 0 {
		timeout = "no timeout"
	}
	env := envelope.New("", fmt.Sprintf("Started job %s (pid %d) in the background: %s (%s). Check it with `aw command status %s`; stop it with `aw command cancel %s`.",
		j.ID, pid, display(j), timeout, j.ID, j.ID), r)
	env.Retention.Importance = envelope.High
	env.Fact("job %s started in the background (pid %d): %s", j.ID, pid, clip(display(j), 200))
	sandboxFact(&env, j)
	if p.capped {
		env.Fact("timeout_seconds was capped at commands.maxSeconds (%s)", seconds(j.TimeoutSeconds))
	}
	env.Artifacts = logArtifacts(ws.Store, j)
	return env, nil
}

func deref(env *envelope.Envelope) envelope.Envelope {
	if env == nil {
		return envelope.Envelope{}
	}
	return *env
}

// prepared is a checked, gated command ready to become a job.
type prepared struct {
	job      *Job
	approval string // the approval to consume once the process exists
	capped   bool   // timeout_seconds was lowered to commands.maxSeconds
}

// prepare checks a run or start request: its shape, the timeout rules, the
// jailed cwd, the policy, the executable, then the gate. A staged call
// returns its envelope instead of a job.
func prepare(ws *workspace.Workspace, req *Request, action string) (*prepared, *envelope.Envelope, error) {
	if err := validate(req); err != nil {
		return nil, nil, err
	}
	timeout, capped, err := timeoutFor(action, req.TimeoutSeconds, ws.Settings.Commands.MaxSeconds)
	if err != nil {
		return nil, nil, err
	}
	cwdAbs, cwdRel, err := resolveCwd(ws, req.Cwd)
	if err != nil {
		return nil, nil, err
	}
	preq := policy.Request{Cwd: cwdRel}
	if req.Line != "" {
		preq.Line = req.Line
	} else {
		preq.Argv = append([]string{req.Executable}, req.Args...)
	}
	v := checkPolicy(ws, preq)
	if !v.Allowed {
		e := envelope.Errorf(envelope.CommandDenied, "%s", v.Message).With("reason", v.Reason)
		if v.Executable != "" {
			e.With("executable", v.Executable)
		}
		if v.Path != "" {
			e.With("path", v.Path)
		}
		return nil, nil, e
	}
	j := &Job{
		ID: store.NewID("job"), Action: action, Status: Starting,
		Executable: req.Executable, Args: req.Args, Line: req.Line, Shell: v.Shell,
		Cwd: cwdRel, TimeoutSeconds: timeout,
	}
	if j.Args == nil {
		j.Args = []string{}
	}
	if v.Shell {
		// /bin/sh runs the checker's canonical re-print, never the caller's
		// text; the job records and shows that line (SECURITY.md).
		if v.Canonical == "" {
			return nil, nil, envelope.Errorf(envelope.Internal, "the policy allowed the line but gave no canonical line to run; report this with the line")
		}
		j.Line = v.Canonical
		if v.Canonical != req.Line {
			j.SubmittedLine = req.Line
		}
		j.Argv = []string{"/bin/sh", "-c", v.Canonical}
		j.ResolvedExecutable = "/bin/sh"
		if j.Executable == "" {
			j.Executable = v.Executable
		}
	} else {
		argv := v.Argv
		if len(argv) == 0 {
			if req.Line != "" {
				return nil, nil, envelope.Errorf(envelope.Internal, "the policy allowed the line but gave no argv to run; report this with the line")
			}
			argv = preq.Argv
		}
		exe, err := resolveExecutable(ws, argv[0], cwdAbs, spawnEnv(ws, ""))
		if err != nil {
			return nil, nil, err
		}
		if j.Executable == "" {
			j.Executable = argv[0]
		}
		j.Argv = append([]string{exe}, argv[1:]...)
		j.ResolvedExecutable = exe
	}

	if err := confine(ws, j, cwdAbs); err != nil {
		return nil, nil, err
	}

	resume := map[string]any{"action": action}
	if req.Line != "" {
		resume["line"] = req.Line
	} else {
		resume["executable"] = req.Executable
		resume["args"] = j.Args
	}
	if req.Cwd != "" {
		resume["cwd"] = req.Cwd
	}
	if req.TimeoutSeconds != nil {
		resume["timeout_seconds"] = *req.TimeoutSeconds
	}
	if req.resume != nil {
		resume = req.resume
	}
	verb := map[string]string{"run": "Run", "start": "Start (in the background)", "test": "Run the tests:"}[action]
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "command",
		Title: clip(fmt.Sprintf("%s `%s`", verb, display(j)), 200),
		// The approval covers what runs (the resolved argv; in sh mode the
		// canonical line), where, and for how long: another argv, directory
		// or timeout never matches it, and the same command given as an
		// argv or as a line is one operation with one approval.
		Hash: gate.Hash(struct {
			Kind, Action string
			Argv         []string
			Shell        bool
			Cwd          string
			Timeout      float64
		}{"command", action, j.Argv, v.Shell, cwdRel, timeout}),
		Resume: gate.Resume{Tool: "workspace_command", Arguments: resume},
		Review: review(j),
	})
	if err != nil {
		return nil, nil, err
	}
	if d.Staged != nil {
		env := gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode)
		return nil, &env, nil
	}
	j.ApprovalID = d.Approval
	return &prepared{job: j, approval: d.Approval, capped: capped}, nil, nil
}

func validate(req *Request) error {
	switch {
	case req.Line != "" && (req.Executable != "" || len(req.Args) > 0):
		return envelope.Errorf(envelope.InvalidInput, "pass either a line or an executable with args, not both: `aw command run --line 'LINE'` or `aw command run -- EXECUTABLE ARGS...`")
	case req.Line == "" && req.Executable == "":
		if len(req.Args) > 0 {
			return envelope.Errorf(envelope.InvalidInput, "args were given without an executable; pass the program as executable and its arguments as args")
		}
		return envelope.Errorf(envelope.InvalidInput, "nothing to run: pass an executable and its args (`aw command run -- go test ./...`) or a line (`--line 'go test ./...'`)")
	case strings.ContainsRune(req.Line, 0) || strings.ContainsRune(req.Executable, 0):
		return envelope.Errorf(envelope.InvalidInput, "the command contains a NUL byte, which no program can receive; remove it")
	}
	for _, a := range req.Args {
		if strings.ContainsRune(a, 0) {
			return envelope.Errorf(envelope.InvalidInput, "an argument contains a NUL byte, which no program can receive; remove it")
		}
	}
	return nil
}

// timeoutFor applies the seed's timeout_seconds rules: omitted means
// commands.maxSeconds; larger values are capped by it; 0 is start's
// unbounded job and nothing else; anything else below one second is
// refused.
func timeoutFor(action string, given *float64, max int) (timeout float64, capped bool, err error) {
	if given == nil {
		return float64(max), false, nil
	}
	t := *given
	switch {
	case t == 0 && action == "start":
		return 0, false, nil
	case t == 0:
		return 0, false, envelope.Errorf(envelope.InvalidInput,
			"--timeout 0 (no timeout) is accepted only with start: a foreground run has no way to be stopped but its timeout. Omit --timeout (or pass a positive number of seconds) for run, or use start for a background job (`aw command start --timeout 0 -- ...`)").With("timeout_seconds", t)
	case math.IsNaN(t) || t < 1:
		return 0, false, envelope.Errorf(envelope.InvalidInput,
			"timeout_seconds %v is below one second; pass at least 1 (seconds), omit it for the default of commands.maxSeconds (%d), or 0 with start for no timeout", t, max).With("timeout_seconds", t)
	case t > float64(max):
		return float64(max), true, nil
	}
	return t, false, nil
}

// resolveCwd jails the working directory: an existing directory inside the
// workspace (or the scope), writable by the jail's rules.
func resolveCwd(ws *workspace.Workspace, cwd string) (abs, rel string, err error) {
	if cwd == "" {
		return ws.Jail.Scope, relDir(ws.Rel(ws.Jail.Scope)), nil
	}
	p, err := ws.Jail.Resolve(cwd, workspace.Write)
	if err != nil {
		return "", "", err
	}
	fi, err := os.Stat(p.Abs)
	if err != nil || !fi.IsDir() {
		return "", "", envelope.Errorf(envelope.InvalidInput, "cwd %q is not an existing directory inside the workspace; pass a directory relative to the root (or omit cwd for the root)", cwd).With("cwd", cwd)
	}
	return p.Abs, relDir(p.Rel), nil
}

func relDir(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// create writes the job record. A start counts the background jobs still
// running under the same lock, so two starts racing cannot both pass
// commands.maxJobs.
func create(ws *workspace.Workspace, j *Job) error {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if j.Action == "start" {
		var running []string
		list, err := ids(ws.Store)
		if err != nil {
			return err
		}
		for _, id := range list {
			var o Job
			if found, err := ws.Store.ReadJSON(jobPath(ws.Store, id), &o); err != nil || !found {
				continue
			}
			if o.Action == "start" && o.live() && o.supervisorAlive() {
				running = append(running, o.ID)
			}
		}
		if max := ws.Settings.Commands.MaxJobs; len(running) >= max {
			return envelope.Errorf(envelope.CommandDenied,
				"%d background jobs are already running (commands.maxJobs is %d): %s. Cancel one with `aw command cancel JOB` or wait for one to end, then start again",
				len(running), max, strings.Join(running, ", ")).With("reason", policy.NotAllowed).With("maxJobs", max).With("running", running)
		}
	}
	now := time.Now().UTC()
	self := os.Getpid()
	j.CreatedAt, j.StartedAt = now, now
	j.LauncherPid, j.LauncherStart = self, proc.Start(self)
	j.ConfigHome = ws.ConfigHome
	j.Stdout.Path = ws.Store.Rel(ws.Store.Path("jobs", j.ID, "stdout.log"))
	j.Stderr.Path = ws.Store.Rel(ws.Store.Path("jobs", j.ID, "stderr.log"))
	return ws.Store.WriteJSON(jobPath(ws.Store, j.ID), j)
}

// report is what a supervisor tells the aw that launched it, once.
type report struct {
	Pid   int             `json:"pid,omitempty"`
	Error *envelope.Error `json:"error,omitempty"`
}

// supervisorCommand is how aw re-executes itself as a job's supervisor
// (tests of this package point it at the test binary).
var supervisorCommand = func(root, id string) (string, []string, error) {
	exe, err := os.Executable()
	return exe, []string{"--root", root, "command", "supervise", id}, err
}

// launchWait bounds how long start waits for the supervisor's report.
var launchWait = 30 * time.Second

// launch starts the detached supervisor of job id and waits for the pid
// of the command it spawned.
func launch(ws *workspace.Workspace, id string, env []string) (int, error) {
	exe, args, err := supervisorCommand(ws.Root, id)
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot find aw's own executable to supervise the job: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot create a pipe for the supervisor: %v", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, args...)
	// The supervisor's environment is the command's (it hands its own to
	// the child): the approver token and the rest of aw's never reach it.
	cmd.Env = env
	cmd.Dir = ws.Root
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = detachAttr()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot start the job's supervisor (%s): %v", exe, err)
	}
	go cmd.Wait() // reaped when it ends while this aw still runs (aw mcp)
	got := make(chan report, 1)
	go func() {
		var rep report
		if err := json.NewDecoder(r).Decode(&rep); err != nil {
			rep.Error = envelope.Errorf(envelope.Internal, "the job's supervisor exited before reporting (%v); `aw command status %s` shows what it recorded", err, id)
		}
		got <- rep
	}()
	select {
	case rep := <-got:
		if rep.Error != nil {
			return 0, rep.Error
		}
		return rep.Pid, nil
	case <-time.After(launchWait):
		cmd.Process.Kill()
		return 0, envelope.Errorf(envelope.Internal, "the job's supervisor did not report within %s and was stopped; retry, and check the machine's load", launchWait)
	}
}

// Supervise is the detached supervisor of a background job (`aw command
// supervise`, which aw runs itself): it claims the job, which must be
// starting and unclaimed, so a job aw checked and gated runs at most once
// and nothing else can be run this way; spawns the command with its own
// environment; reports the pid on reportFD; and records the end.
func Supervise(root, id string, rep *os.File) error {
	s := store.Open(root)
	send := func(r report) {
		if rep != nil {
			json.NewEncoder(rep).Encode(r)
			rep.Close()
			rep = nil
		}
	}
	self := os.Getpid()
	j, err := update(s, id, func(j *Job) error {
		if j.Status != Starting || j.SupervisorPid != 0 || j.Action != "start" {
			return envelope.Errorf(envelope.TransactionState, "job %s is %s and already has a supervisor: only `aw command start` launches one", id, j.Status)
		}
		j.SupervisorPid, j.SupervisorStart = self, proc.Start(self)
		return nil
	})
	if err != nil {
		send(report{Error: asError(err)})
		return err
	}
	_, err = execute(s, id, os.Environ(), supervisedSnapshot(root, j), func(pid int, err error) {
		if err != nil {
			send(report{Error: asError(err)})
			return
		}
		send(report{Pid: pid})
	})
	return err
}

// supervisedSnapshot is a background job's scan before it starts, taken by
// its supervisor with the settings the launcher saw (nil when the
// workspace no longer opens: the job runs, unrecorded).
func supervisedSnapshot(root string, j *Job) *snapshot.Session {
	ws, err := workspace.Open(workspace.Options{Root: root, ConfigHome: j.ConfigHome})
	if err != nil {
		return nil
	}
	return snapshot.Begin(context.Background(), ws, nil)
}

func asError(err error) *envelope.Error {
	if e, ok := err.(*envelope.Error); ok {
		return e
	}
	return envelope.Errorf(envelope.Internal, "%v", err)
}

// runEnvelope is run's result: exit code and tails of both streams inline,
// bounded by maxToolResultChars (shared by the two) and held in memory up
// to commands.maxOutputBytes each; the full logs are artifacts.
func runEnvelope(ws *workspace.Workspace, j *Job, capped bool) (envelope.Envelope, error) {
	r := result(ws.Store, j)
	budget := ws.Settings.MaxToolResultChars
	outChars, errChars := budget/2, budget-budget/2
	// A stream smaller than its half lends the rest to the other.
	if j.Stderr.Bytes < int64(errChars) {
		outChars = budget - int(j.Stderr.Bytes)
	} else if j.Stdout.Bytes < int64(outChars) {
		errChars = budget - int(j.Stdout.Bytes)
	}
	if err := addTails(ws.Store, j, r, outChars, errChars, int64(ws.Settings.Commands.MaxOutputBytes)); err != nil {
		return envelope.Envelope{}, err
	}
	what := display(j)
	var summary string
	switch j.Status {
	case TimedOut:
		summary = fmt.Sprintf("Job %s: `%s` timed out after %s and its process tree was killed.", j.ID, clip(what, 200), seconds(j.TimeoutSeconds))
	case Cancelled:
		summary = fmt.Sprintf("Job %s: `%s` was cancelled after %s and its process tree was killed.", j.ID, clip(what, 200), ms(j.DurationMs))
	case Killed:
		summary = fmt.Sprintf("Job %s: `%s` was killed by %s after %s.", j.ID, clip(what, 200), j.Signal, ms(j.DurationMs))
	default:
		summary = fmt.Sprintf("Job %s: `%s` exited %d in %s.", j.ID, clip(what, 200), deref0(j.ExitCode), ms(j.DurationMs))
	}
	if r.StdoutTruncated || r.StderrTruncated {
		summary += fmt.Sprintf(" The tails are cut; the full logs are %s and %s.", j.Stdout.Path, j.Stderr.Path)
	}
	env := envelope.New("", summary, r)
	if j.Status != Exited {
		env.Retention.Importance = envelope.High
	}
	env.Fact("job %s %s: %s", j.ID, statusPhrase(j), clip(what, 200))
	sandboxFact(&env, j)
	if capped {
		env.Fact("timeout_seconds was capped at commands.maxSeconds (%s)", seconds(j.TimeoutSeconds))
	}
	env.Omit("data.stdoutTail", "data.stderrTail")
	env.Artifacts = logArtifacts(ws.Store, j)
	return env, nil
}

// addTails reads the ends of both logs into r.
func addTails(s *store.Store, j *Job, r *Result, outChars, errChars int, maxBytes int64) error {
	out, err := tailFile(logAbs(s, j.Stdout.Path), outChars, maxBytes)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot read %s: %v", j.Stdout.Path, err)
	}
	errT, err := tailFile(logAbs(s, j.Stderr.Path), errChars, maxBytes)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot read %s: %v", j.Stderr.Path, err)
	}
	r.StdoutTail, r.StdoutTruncated, r.StdoutBytes = &out.Text, out.Truncated, out.Size
	r.StderrTail, r.StderrTruncated, r.StderrBytes = &errT.Text, errT.Truncated, errT.Size
	return nil
}

// result is the data shared by every action about one job.
func result(s *store.Store, j *Job) *Result {
	r := &Result{
		JobID: j.ID, Action: j.Action, Status: j.shownStatus(), Executable: j.Executable, Args: j.Args, Line: j.Line,
		Argv: j.Argv, ResolvedExecutable: j.ResolvedExecutable, Cwd: j.Cwd, TimeoutSeconds: j.TimeoutSeconds,
		Sandbox: j.Sandbox, Pid: j.Pid, ExitCode: j.ExitCode, Signal: j.Signal, TimedOut: j.TimedOut, Cancelled: j.Cancelled,
		StartedAt: j.StartedAt, EndedAt: j.EndedAt, DurationMs: j.DurationMs,
		StdoutBytes: j.Stdout.Bytes, StderrBytes: j.Stderr.Bytes, StdoutPath: j.Stdout.Path, StderrPath: j.Stderr.Path,
		Error: j.Error, SubmittedLine: j.SubmittedLine, Changes: j.Changes,
	}
	if r.Args == nil {
		r.Args = []string{}
	}
	if j.live() {
		r.DurationMs = time.Since(j.StartedAt).Milliseconds()
	}
	for _, l := range []struct {
		path string
		n    *int64
	}{{j.Stdout.Path, &r.StdoutBytes}, {j.Stderr.Path, &r.StderrBytes}} {
		if fi, err := os.Stat(logAbs(s, l.path)); err == nil {
			*l.n = fi.Size()
		}
	}
	return r
}

// logArtifacts points at the two logs. The hash is the one recorded when
// the job ended, given only while the file still has that size.
func logArtifacts(s *store.Store, j *Job) []envelope.Artifact {
	var out []envelope.Artifact
	for _, l := range []struct {
		f    LogFile
		name string
	}{{j.Stdout, "stdout"}, {j.Stderr, "stderr"}} {
		a := envelope.Artifact{Kind: "log", Path: l.f.Path, Description: l.name + " of job " + j.ID}
		if fi, err := os.Stat(logAbs(s, l.f.Path)); err == nil {
			a.Bytes = fi.Size()
			if !j.live() && fi.Size() == l.f.Bytes {
				a.SHA256 = l.f.SHA256
			}
		}
		out = append(out, a)
	}
	return out
}

// Status reports one job. A running job is tailed with the default length;
// a finished one only when tail_chars is given.
func Status(ctx context.Context, ws *workspace.Workspace, req *StatusRequest) (envelope.Envelope, error) {
	if err := checkTailChars(req.TailChars); err != nil {
		return envelope.Envelope{}, err
	}
	j, err := load(ws.Store, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if j, err = refresh(ws.Store, j); err != nil {
		return envelope.Envelope{}, err
	}
	r := result(ws.Store, j)
	tailed := req.TailChars != nil || j.live()
	if tailed {
		n := DefaultTailChars
		if req.TailChars != nil {
			n = *req.TailChars
		}
		if err := addTails(ws.Store, j, r, n, n, 0); err != nil {
			return envelope.Envelope{}, err
		}
	}
	var summary string
	switch j.Status {
	case Starting, Running:
		summary = fmt.Sprintf("Job %s is running (pid %d, for %s): %s.", j.ID, j.Pid, ms(r.DurationMs), clip(display(j), 200))
	case Orphaned:
		summary = fmt.Sprintf("Job %s is orphaned: its supervisor vanished before recording the end, so its exit code is unknown; the process (pid %d) may still be running, and `aw command cancel %s` stops it.", j.ID, j.Pid, j.ID)
	default:
		summary = fmt.Sprintf("Job %s %s: %s.", j.ID, statusPhrase(j), clip(display(j), 200))
		if !tailed {
			summary += " Pass --tail-chars N to see the end of its output."
		}
	}
	env := envelope.New("", summary, r)
	env.Fact("job %s %s", j.ID, statusPhrase(j))
	sandboxFact(&env, j)
	if tailed {
		env.Omit("data.stdoutTail", "data.stderrTail")
	}
	env.Artifacts = logArtifacts(ws.Store, j)
	return env, nil
}

func checkTailChars(n *int) error {
	if n != nil && (*n < MinTailChars || *n > MaxTailChars) {
		return envelope.Errorf(envelope.InvalidInput,
			"tail_chars %d is out of range: pass %d to %d (default %d)", *n, MinTailChars, MaxTailChars, DefaultTailChars).With("tail_chars", *n)
	}
	return nil
}

// Cancel stops a job's whole process group: SIGTERM, then SIGKILL after a
// grace period. A job that has already finished is not an error, but the
// result says that nothing was stopped.
func Cancel(ctx context.Context, ws *workspace.Workspace, req *CancelRequest) (envelope.Envelope, error) {
	switch {
	case req.All && req.JobID != "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "pass either a job id or all, not both: `aw command cancel JOB` stops one job, `aw command cancel --all` every running one")
	case req.All:
		return cancelAll(ctx, ws)
	case req.JobID == "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "cancel needs a job id (`aw command cancel JOB`; `aw command list` lists them) or all (`aw command cancel --all`) to stop every running job")
	}
	j, err := load(ws.Store, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if j, err = refresh(ws.Store, j); err != nil {
		return envelope.Envelope{}, err
	}
	if j.Status == Orphaned {
		if j.Pid == 0 || !groupAlive(j.Pid) {
			return alreadyFinished(ws, j), nil
		}
		// Nobody is waiting for the tree: stop it and record the end here.
		killTree(j.Pid)
		now := time.Now().UTC()
		if j, err = update(ws.Store, j.ID, func(cur *Job) error {
			cur.Status, cur.Cancelled, cur.EndedAt = Cancelled, true, &now
			cur.DurationMs = now.Sub(cur.StartedAt).Milliseconds()
			return nil
		}); err != nil {
			return envelope.Envelope{}, err
		}
		return cancelled(ws, j), nil
	}
	if !j.live() {
		return alreadyFinished(ws, j), nil
	}
	finished := false
	if j, err = update(ws.Store, j.ID, func(cur *Job) error {
		if !cur.live() {
			finished = true
			return nil
		}
		cur.CancelRequested = true
		return nil
	}); err != nil {
		return envelope.Envelope{}, err
	}
	if finished {
		return alreadyFinished(ws, j), nil
	}
	if j.Pid != 0 {
		killTree(j.Pid)
	}
	// The supervisor records the end; wait for it, and take over if it
	// vanished meanwhile.
	deadline := time.Now().Add(killGrace + 5*time.Second)
	for {
		if j, err = load(ws.Store, j.ID); err != nil {
			return envelope.Envelope{}, err
		}
		if j, err = refresh(ws.Store, j); err != nil {
			return envelope.Envelope{}, err
		}
		if !j.live() || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if j.Status == Orphaned {
		now := time.Now().UTC()
		if j, err = update(ws.Store, j.ID, func(cur *Job) error {
			cur.Status, cur.Cancelled, cur.EndedAt = Cancelled, true, &now
			return nil
		}); err != nil {
			return envelope.Envelope{}, err
		}
	}
	return cancelled(ws, j), nil
}

func cancelled(ws *workspace.Workspace, j *Job) envelope.Envelope {
	r := result(ws.Store, j)
	summary := fmt.Sprintf("Cancelled job %s: its process group was stopped (status %s). Its logs stay under %s.", j.ID, r.Status, ws.Store.Rel(jobDir(ws.Store, j.ID)))
	if j.live() {
		summary = fmt.Sprintf("Job %s was signalled (SIGTERM, then SIGKILL) but its supervisor has not recorded the end yet; check `aw command status %s`.", j.ID, j.ID)
	}
	env := envelope.New("", summary, r)
	env.Fact("job %s %s", j.ID, statusPhrase(j))
	env.Artifacts = logArtifacts(ws.Store, j)
	return env
}

// alreadyFinished is cancel's answer for a job that already ended: ok, nothing to stop.
func alreadyFinished(ws *workspace.Workspace, j *Job) envelope.Envelope {
	r := result(ws.Store, j)
	r.AlreadyFinished = true
	msg := fmt.Sprintf("%s was already %s before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job.", j.ID, j.Status)
	env := envelope.New("", msg, r)
	env.Fact("%s", msg)
	env.Artifacts = logArtifacts(ws.Store, j)
	return env
}

// Entry is one job in a listing.
type Entry struct {
	ID         string     `json:"id"`
	Action     string     `json:"action"`
	Status     string     `json:"status"`
	Executable string     `json:"executable"`
	Command    string     `json:"command"`
	ExitCode   *int       `json:"exitCode"`
	Pid        int        `json:"pid,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	EndedAt    *time.Time `json:"endedAt"`
}

// ListData is data of command.list.
type ListData struct {
	Jobs      []Entry `json:"jobs"`
	Total     int     `json:"total"`
	Running   int     `json:"running"`
	Truncated bool    `json:"truncated"`
}

// List lists jobs, newest first.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 20, 200)
	if err != nil {
		return envelope.Envelope{}, err
	}
	all, err := ids(ws.Store)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := ListData{Jobs: []Entry{}, Total: len(all)}
	for _, id := range all {
		j, err := load(ws.Store, id)
		if err != nil {
			if envelope.CodeOf(err) == envelope.NotFound {
				continue // removed meanwhile
			}
			return envelope.Envelope{}, err
		}
		if j, err = refresh(ws.Store, j); err != nil {
			return envelope.Envelope{}, err
		}
		if j.live() {
			d.Running++
		}
		if len(d.Jobs) == limit {
			d.Truncated = true
			continue
		}
		d.Jobs = append(d.Jobs, Entry{ID: j.ID, Action: j.Action, Status: j.shownStatus(), Executable: j.Executable,
			Command: clip(display(j), 200), ExitCode: j.ExitCode, Pid: j.Pid, StartedAt: j.StartedAt, EndedAt: j.EndedAt})
	}
	summary := fmt.Sprintf("%d jobs, %d running.", d.Total, d.Running)
	if d.Truncated {
		summary += fmt.Sprintf(" Showing the newest %d; pass --limit for more.", limit)
	}
	env := envelope.New("", summary, d)
	for _, e := range d.Jobs {
		if e.Status == Running {
			env.Fact("job %s running (pid %d): %s", e.ID, e.Pid, e.Command)
		}
	}
	return env, nil
}

// display renders what a job runs the way a shell user would type it.
func display(j *Job) string {
	if j.Line != "" {
		return j.Line
	}
	return envelope.QuoteArgv(append([]string{j.Executable}, j.Args...))
}

// review is what the human deciding a staged command is shown.
func review(j *Job) string {
	t := seconds(j.TimeoutSeconds)
	if j.TimeoutSeconds == 0 {
		t = "none (runs until cancelled)"
	}
	how := "argv, no shell"
	if j.Shell {
		how = "through /bin/sh -c"
	}
	if j.SubmittedLine != "" {
		how += ", re-printed from the submitted line: this is the text that was checked and will run"
	}
	box := "none"
	if j.Sandbox != nil {
		box = strings.TrimPrefix(j.Sandbox.Summary(), "sandbox: ")
	}
	return fmt.Sprintf("$ %s\nruns:    %s (%s)\ncwd:     %s\ntimeout: %s\naction:  %s\nsandbox: %s", display(j), envelope.QuoteArgv(j.Argv), how, j.Cwd, t, j.Action, box)
}

func statusPhrase(j *Job) string {
	switch j.Status {
	case Exited, Failed:
		if j.ExitCode != nil {
			return fmt.Sprintf("%s with exit code %d", j.Status, *j.ExitCode)
		}
		return j.Status
	case Killed:
		return "was killed by " + j.Signal
	case TimedOut:
		return fmt.Sprintf("timed out after %s", seconds(j.TimeoutSeconds))
	case Starting:
		return "is running"
	}
	return "is " + j.Status
}

func seconds(s float64) string { return fmt.Sprintf("%gs", s) }

func ms(d int64) string {
	if d < 1000 {
		return fmt.Sprintf("%dms", d)
	}
	return fmt.Sprintf("%.1fs", float64(d)/1000)
}

func deref0(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func clip(s string, n int) string { return envelope.Clip(s, n) }
