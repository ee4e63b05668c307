package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// StartRequest is agent.start: a new run's parameters, or resume.
type StartRequest struct {
	RunRequest
	Resume string `json:"resume,omitempty" doc:"an interrupted or failed run_ to continue from its last finished tool call instead of starting a new run (give no other parameter)"`
}

// WaitRequest is agent.wait.
type WaitRequest struct {
	RunID          string   `json:"run_id" doc:"the run_ id (from start or list)"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds to wait, 1-3600 (default 60); a run still running then is a TIMEOUT error"`
}

// SendRequest is agent.send.
type SendRequest struct {
	RunID   string `json:"run_id" doc:"the run_ id (from start or list)"`
	Message string `json:"message" doc:"instructions that add to the run's objective (at most 20,000 characters): a running run reads them before its next model request; a settled run runs on with them in the background, with its caps counted afresh"`
}

// Wait bounds, as command wait has them.
const (
	DefaultWaitSeconds = 60
	MaxWaitSeconds     = 3600
	// cancelWait bounds how long cancel waits for the run to settle.
	cancelWait = 10 * time.Second
	// launchWait bounds how long start waits for the supervisor's report.
	launchWait = 30 * time.Second
)

// StartAction is agent.start: the same rules as run, then the loop goes
// on in a detached supervisor and the call returns the run id at once.
// state.json exists (status running, this process its owner) before the
// supervisor starts; the supervisor takes it over.
func StartAction(ctx context.Context, ws *workspace.Workspace, req *StartRequest) (envelope.Envelope, error) {
	if req.Resume != "" {
		if req.Objective != "" || req.Context != "" || req.IdempotencyKey != "" {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "resume continues run %s as it was asked: give no objective, context or idempotency_key with it", req.Resume)
		}
		return resume(ws, req.Resume)
	}
	st, _, env, err := admit(ws, &req.RunRequest, "start", true, nil)
	if err != nil || st == nil {
		return env, err
	}
	return started(ws, st, fmt.Sprintf("Run %s started in the background", st.RunID))
}

// StartResearch starts a research-mode run tied to project: commit_edits
// false, no commands, the web as settings allow. d is the gate's decision
// on the call that asked for it (research deep, gated as web), which
// covers the run.
func StartResearch(ws *workspace.Workspace, objective, context, project string, d gate.Decision) (envelope.Envelope, error) {
	no := false
	req := &RunRequest{Objective: objective, Context: context, Mode: "research", CommitEdits: &no, AllowCommands: &no, ResearchProjectID: project}
	st, _, env, err := admit(ws, req, "start", true, &d)
	if err != nil || st == nil {
		return env, err
	}
	return started(ws, st, fmt.Sprintf("Research run %s started in the background, recording into %s", st.RunID, project))
}

// started launches st's supervisor and reports the run.
func started(ws *workspace.Workspace, st *State, what string) (envelope.Envelope, error) {
	pid, err := launch(ws, st)
	if err != nil {
		// Nothing runs the run: record why, so no reader waits on it.
		markFailed(ws, st.RunID, err)
		return envelope.Envelope{}, err
	}
	cur, err := load(ws, st.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := report(ws, cur)
	env.Summary = fmt.Sprintf("%s (supervisor pid %d): `aw agent wait %s` blocks until it settles, `aw agent status %s` shows its progress, `aw agent cancel %s` stops it.", what, pid, st.RunID, st.RunID, st.RunID)
	return env, nil
}

func markFailed(ws *workspace.Workspace, id string, err error) {
	e, ok := err.(*envelope.Error)
	if !ok {
		e = envelope.Errorf(envelope.Internal, "%v", err)
	}
	store.Update(ws.Store, statePath(ws, id), func(cur *State) error {
		if cur.Status == Running && !cur.Claimed {
			cur.Status, cur.Error, cur.EndedAt = Failed, e, time.Now().UTC()
		}
		return nil
	})
}

// resume continues an interrupted or failed run in a new supervisor: the
// pass it was in is rebuilt from its transcript, and the calls its last
// reply left unanswered run again only when their action may run twice.
// The run keeps its caps and what its approval covered; a run started to
// commit its edits is not resumed in a mode that keeps edits planned.
func resume(ws *workspace.Workspace, id string) (envelope.Envelope, error) {
	st, err := load(ws, id)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if st.Status != Interrupted && st.Status != Failed {
		return envelope.Envelope{}, envelope.Errorf(envelope.TransactionState, "run %s is %s: only an interrupted or failed run is resumed; `aw agent send %s MESSAGE` runs a settled run on with new instructions", id, st.Status, id).With("runId", id).With("status", st.Status)
	}
	// A command the dead process ran may still run: it is ended (and
	// recorded cancelled) before the run goes on without it.
	dead := st.PID
	if err := rerun(ws, st, false); err != nil {
		return envelope.Envelope{}, err
	}
	command.EndOrphansOf(ws, dead)
	return started(ws, st, fmt.Sprintf("Run %s resumed in the background from its last finished tool call", id))
}

// rerun makes a settled run running again, owned by this process until
// its new supervisor claims it. newLeg gives it the spec's caps again,
// counted from where it is (a send); a resume keeps its caps.
func rerun(ws *workspace.Workspace, st *State, newLeg bool) error {
	if err := configuredFor(ws, st); err != nil {
		return err
	}
	if st.Spec.CommitEdits && !commitDefault(ws) {
		return envelope.Errorf(envelope.EditConflict, "run %s was started to commit its own edits, and the permission mode now keeps a run's edits planned: start a new run instead", st.RunID).With("runId", st.RunID).With("reason", "mode-changed")
	}
	self := os.Getpid()
	var out State
	err := store.Update(ws.Store, statePath(ws, st.RunID), func(cur *State) error {
		if cur.Status == Running {
			return envelope.Errorf(envelope.TransactionState, "run %s is running again already", st.RunID).With("runId", st.RunID)
		}
		if newLeg {
			cur.CapPasses, cur.CapToolCalls = len(cur.Passes)+cur.Spec.MaxPasses, cur.ToolCalls+cur.Spec.MaxToolCalls
		}
		cur.Status, cur.Result, cur.Error, cur.EndedAt = Running, nil, nil, time.Time{}
		cur.PID, cur.PIDStart, cur.Detached, cur.Claimed = self, proc.Start(self), true, false
		cur.UpdatedAt = time.Now().UTC()
		out = *cur
		return nil
	})
	if err != nil {
		return err
	}
	os.Remove(cancelPath(ws, st.RunID))
	*st = out
	return nil
}

// configuredFor checks that the settings still let the run reach a model.
func configuredFor(ws *workspace.Workspace, st *State) error {
	spec := st.Spec
	_, err := configured(&ws.Settings, &spec)
	return err
}

// report of the supervisor to the aw that launched it, once.
type launchReport struct {
	Pid   int             `json:"pid,omitempty"`
	Error *envelope.Error `json:"error,omitempty"`
}

// SupervisorCommand is how aw re-executes itself as a run's supervisor.
var SupervisorCommand = func(root, tier, id string) (string, []string, error) {
	exe, err := os.Executable()
	return exe, []string{"--root", root, "--tier", tier, "agent", "supervise", id}, err
}

// launch starts the detached supervisor of run st (a new session: no
// terminal, and no Ctrl-C aimed at the caller reaches it) and waits for it
// to claim the run. Its environment is this process's without the approver
// token: the run acts for the agent, never for the human. Its output (a
// crash's trace) goes to supervisor.log in the run's directory.
func launch(ws *workspace.Workspace, st *State) (int, error) {
	exe, args, err := SupervisorCommand(ws.Root, st.Tier, st.RunID)
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot find aw's own executable to supervise the run: %v", err)
	}
	logf, err := os.OpenFile(runDir(ws, st.RunID)+"/supervisor.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot create the supervisor's log: %v", err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot create a pipe for the supervisor: %v", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AW_APPROVER_TOKEN=") && !strings.HasPrefix(kv, "AW_ROOT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir = ws.Root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = detachAttr()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, envelope.Errorf(envelope.Internal, "cannot start the run's supervisor (%s): %v", exe, err)
	}
	go cmd.Wait() // reaped when it ends while this aw still runs (aw mcp)
	got := make(chan launchReport, 1)
	go func() {
		var rep launchReport
		if err := json.NewDecoder(r).Decode(&rep); err != nil {
			rep.Error = envelope.Errorf(envelope.Internal, "the run's supervisor exited before reporting (%v); its log is %s", err, ws.Store.Rel(runDir(ws, st.RunID)+"/supervisor.log"))
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
		return 0, envelope.Errorf(envelope.Internal, "the run's supervisor did not report within %s and was stopped; retry, and check the machine's load", launchWait)
	}
}

// Supervise is the detached supervisor of a run (`aw agent supervise`,
// which aw runs itself). It claims the run, which must be running,
// detached and unclaimed, with a live launcher: a run admitted by start
// (or made running again by resume or send) is run by one supervisor at
// most, and nothing else can be run this way. It reports its pid on rep,
// runs the loop (resuming inside the pass the transcript ends in), and
// exits when the run settles, is cancelled (a cancel request, or a signal)
// or its record or the workspace's .agentic/ disappears.
func Supervise(ctx context.Context, ws *workspace.Workspace, id string, rep *os.File) error {
	send := func(r launchReport) {
		if rep != nil {
			json.NewEncoder(rep).Encode(r)
			rep.Close()
			rep = nil
		}
	}
	defer send(launchReport{Error: envelope.Errorf(envelope.Internal, "the supervisor stopped before claiming the run")})
	fail := func(err error) error {
		e, ok := err.(*envelope.Error)
		if !ok {
			e = envelope.Errorf(envelope.Internal, "%v", err)
		}
		send(launchReport{Error: e})
		return e
	}
	if !store.ValidID(id, "run") {
		return fail(envelope.Errorf(envelope.InvalidInput, "%q is not a run id", id))
	}
	self := os.Getpid()
	var st State
	err := store.Update(ws.Store, statePath(ws, id), func(cur *State) error {
		if cur.RunID != id || cur.Status != Running || !cur.Detached || cur.Claimed || !proc.Alive(cur.PID, cur.PIDStart) {
			return envelope.Errorf(envelope.TransactionState, "run %s is not waiting for a supervisor: only `aw agent start` (or its --resume, or a send) launches one", id)
		}
		cur.PID, cur.PIDStart, cur.Claimed = self, proc.Start(self), true
		cur.UpdatedAt = time.Now().UTC()
		st = *cur
		return nil
	})
	if err != nil {
		return fail(err)
	}
	events, err := readEvents(transcriptPath(ws, id))
	if err != nil {
		return fail(err)
	}
	client, err := configured(&ws.Settings, &st.Spec)
	if err != nil {
		// The settings changed between start and now: the run fails
		// with the reason, recorded.
		st.Status, st.Error, st.EndedAt = Failed, err.(*envelope.Error), time.Now().UTC()
		save(ws, &st)
		return fail(err)
	}
	send(launchReport{Pid: self})
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	l := &loop{ws: runWorkspace(ws, &st), client: client, st: &st, events: events}
	l.run(ctx)
	return nil
}

// Cancel is agent.cancel, from any process: it asks the loop to stop (a
// cancel file the loop polls for) and waits, at most cancelWait, for the
// run to settle. A run whose process is gone is recorded at once.
func Cancel(ctx context.Context, ws *workspace.Workspace, req *RunIDRequest) (envelope.Envelope, error) {
	st, err := load(ws, req.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if settled(st.Status) {
		env := report(ws, st)
		env.Summary = fmt.Sprintf("%s was already %s before cancel: nothing was running, so nothing was stopped. Check the run id if you expected to stop a running run.", st.RunID, st.Status)
		env.Fact("%s was already %s before cancel", st.RunID, st.Status)
		return env, nil
	}
	if err := store.WriteFile(cancelPath(ws, st.RunID), []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return envelope.Envelope{}, err
	}
	deadline := time.Now().Add(cancelWait)
	for {
		cur, err := load(ws, st.RunID)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if settled(cur.Status) {
			env := report(ws, cur)
			env.Summary = fmt.Sprintf("Cancelled %s: ", cur.RunID) + env.Summary
			return env, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			env := report(ws, cur)
			env.Summary = fmt.Sprintf("Asked %s to stop; it is still finishing its current step (pid %d): `aw agent wait %s` blocks until it has.", cur.RunID, cur.PID, cur.RunID)
			return env, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Wait is agent.wait: it blocks until the run settles, at most
// timeout_seconds; a run still running then is a TIMEOUT error.
func Wait(ctx context.Context, ws *workspace.Workspace, req *WaitRequest) (envelope.Envelope, error) {
	timeout := float64(DefaultWaitSeconds)
	if req.TimeoutSeconds != nil {
		timeout = *req.TimeoutSeconds
		if math.IsNaN(timeout) || timeout < 1 || timeout > MaxWaitSeconds {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "timeout_seconds %v is out of range: pass 1 to %d seconds (default %d); to look without waiting use `aw agent status`", timeout, MaxWaitSeconds, DefaultWaitSeconds).With("timeout_seconds", timeout)
		}
	}
	deadline := time.Now().Add(time.Duration(timeout * float64(time.Second)))
	for {
		st, err := load(ws, req.RunID)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if settled(st.Status) {
			return ended(ws, st), nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.Timeout, "run %s is still running after waiting %gs (pass %d, %d tool call(s) so far): wait again with `aw agent wait %s --timeout S`, look with `aw agent status %s`, or stop it with `aw agent cancel %s`", st.RunID, timeout, st.Pass, st.ToolCalls, st.RunID, st.RunID, st.RunID).With("runId", st.RunID).With("status", Running).With("timeoutSeconds", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Send is agent.send: the message adds to the run's objective. A running
// run reads it before its next model request; a settled one runs on with
// it in a new supervisor, its caps counted afresh from where it is. A
// send is gated as start is (it changes what a run that may run commands
// or reach the web will do): in Manual mode it is staged when the run has
// that reach, in Plan mode it needs an approved plan.
func Send(ctx context.Context, ws *workspace.Workspace, req *SendRequest) (envelope.Envelope, error) {
	n := utf8.RuneCountInString(req.Message)
	switch {
	case strings.TrimSpace(req.Message) == "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "message is required: say what the run should do next, e.g. `aw agent send RUN 'also cover the error path'`")
	case n > MaxObjectiveChars:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "message is %d characters, more than %d: send a shorter instruction and name the files the run should read", n, MaxObjectiveChars)
	}
	st, err := load(ws, req.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if settled(st.Status) {
		if err := configuredFor(ws, st); err != nil {
			return envelope.Envelope{}, err
		}
	}
	if ws.Settings.PermissionMode != gate.Manual || st.Spec.AllowCommands || st.Spec.AllowWeb {
		d, err := gate.Check(ws, gate.Operation{
			Kind:   "agent",
			Title:  envelope.Clip(fmt.Sprintf("Send run %s (%s%s) new instructions: %s", st.RunID, st.Spec.Mode, reach(&st.Spec), firstLine(req.Message)), 200),
			Hash:   gate.Hash(map[string]string{"runId": st.RunID, "message": req.Message}),
			Resume: gate.Resume{Tool: "workspace_agent", Arguments: resumeArgs(req, "send")},
			Review: fmt.Sprintf("Run %s, objective:\n%s\n\nNew instructions:\n%s", st.RunID, st.Spec.Objective, req.Message),
		})
		if err != nil {
			return envelope.Envelope{}, err
		}
		if d.Staged != nil {
			return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
		}
		if err := gate.Consume(ws, d.Approval); err != nil {
			return envelope.Envelope{}, err
		}
	}
	line, _ := json.Marshal(req.Message)
	// Appended and the status read under the lock a run settles under: a
	// run still going then reads the message before it ends.
	going := false
	err = locked(ws, func() error {
		f, err := os.OpenFile(inboxPath(ws, st.RunID), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return envelope.Errorf(envelope.Internal, "cannot append to the run's inbox: %v", err)
		}
		defer f.Close()
		if _, err := f.Write(append(line, '\n')); err != nil {
			return envelope.Errorf(envelope.Internal, "cannot append to the run's inbox: %v", err)
		}
		var cur State
		if found, err := ws.Store.ReadJSON(statePath(ws, st.RunID), &cur); err == nil && found {
			going = !settled(cur.Status)
		}
		return f.Sync()
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if cur, err := load(ws, st.RunID); err == nil && going && !settled(cur.Status) {
		env := report(ws, cur)
		env.Summary = fmt.Sprintf("Sent to %s: it reads the message before its next model request. ", cur.RunID) + env.Summary
		return env, nil
	}
	// Settled (perhaps just now): it runs on with the message.
	st, err = load(ws, st.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if err := rerun(ws, st, true); err != nil {
		return envelope.Envelope{}, err
	}
	return started(ws, st, fmt.Sprintf("Run %s runs on in the background with the new instructions", st.RunID))
}

func locked(ws *workspace.Workspace, fn func() error) error {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

func init() { inspect.MoreProcesses = append(inspect.MoreProcesses, Processes) }

// Processes lists the workspace's run supervisors that are alive, as
// their owner records (state.json) name them.
func Processes(ws *workspace.Workspace) []proc.Owned {
	var out []proc.Owned
	eachRun(ws, func(st *State) {
		if st.Detached && st.Claimed && proc.Alive(st.PID, st.PIDStart) {
			out = append(out, proc.Owned{Kind: "agent-supervisor", ID: st.RunID, Pid: st.PID, AgeSeconds: int64(time.Since(st.CreatedAt) / time.Second)})
		}
	})
	return out
}

// EndStale ends run supervisors whose record no longer holds them: the
// run is recorded settled while the process lives on (it should have
// exited), or a cancel was asked for more than cancelWait ago and it has
// not stopped. Each is killed and its run recorded cancelled. With dryRun
// it only reports them.
func EndStale(ws *workspace.Workspace, dryRun bool) []proc.Owned {
	var out []proc.Owned
	eachRun(ws, func(st *State) {
		if !st.Detached || !st.Claimed || !proc.Alive(st.PID, st.PIDStart) {
			return
		}
		stale := settled(st.Status)
		if fi, err := os.Stat(cancelPath(ws, st.RunID)); err == nil && time.Since(fi.ModTime()) > cancelWait {
			stale = true
		}
		if !stale {
			return
		}
		out = append(out, proc.Owned{Kind: "agent-supervisor", ID: st.RunID, Pid: st.PID, AgeSeconds: int64(time.Since(st.CreatedAt) / time.Second)})
		if dryRun {
			return
		}
		if !settled(st.Status) {
			store.WriteFile(cancelPath(ws, st.RunID), []byte("aw gc\n"), 0o644)
		}
		kill(st.PID)
		for i := 0; i < 100 && proc.Alive(st.PID, st.PIDStart); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		markDead(ws, st.RunID)
	})
	return out
}

// eachRun calls fn with every run's saved state (no liveness check).
func eachRun(ws *workspace.Workspace, fn func(*State)) {
	ids, err := listRuns(ws)
	if err != nil {
		return
	}
	for _, id := range ids {
		var st State
		if found, err := ws.Store.ReadJSON(statePath(ws, id), &st); err == nil && found {
			fn(&st)
		}
	}
}
