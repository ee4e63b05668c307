package command

import (
	"context"
	"errors"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/store"
)

// killGrace is how long a tree gets between SIGTERM and SIGKILL.
var killGrace = 2 * time.Second

// LongLived is set by a process that serves many calls (aw mcp). Such a
// process does not become the child subreaper: orphans of everything else
// it starts (Chromium's helpers, a job's escaped children) would be
// re-parented to it and stay zombies for its whole life, since it reaps
// only the sandbox inits of its own jobs. A foreground run there is
// recorded as ended when the sandbox's outer process is; the kernel kills
// the rest of the sandbox a moment later.
var LongLived bool

// ownerCheck is how often a running job checks that its record still
// exists.
const ownerCheck = 2 * time.Second

// execute runs a claimed job to its end: the process in its own group with
// stdout and stderr going straight to the log files (aw never holds the
// output, so a job printing gigabytes leaves aw's memory flat), a timer
// when the job has a timeout, and every step recorded in job.json. started
// is called once the process exists (or failed to). snap, the scan taken
// before the job (nil: none), is finished once the process tree is gone,
// and what it found is recorded with the end. It returns the final record.
func execute(s *store.Store, id string, env []string, snap *snapshot.Session, started func(pid int, err error)) (*Job, error) {
	j, err := load(s, id)
	if err != nil {
		started(0, err)
		return nil, err
	}
	outF, errF, err := openLogs(s, j)
	if err != nil {
		started(0, err)
		return fail(s, id, err)
	}
	defer outF.Close()
	defer errF.Close()

	argv := j.Argv
	if len(j.Spawn) > 0 {
		argv = j.Spawn
	}
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Env:         env,
		Dir:         filepath.Join(s.Root, filepath.FromSlash(j.Cwd)),
		Stdout:      outF,
		Stderr:      errF,
		SysProcAttr: groupAttr(),
	}
	// Signals to the supervisor (or to the aw running a foreground job)
	// stop the tree first: a Ctrl-C never leaves the command behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	if !LongLived {
		becomeSubreaper()
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		code := envelope.Internal
		if errors.Is(err, fs.ErrNotExist) {
			code = envelope.NotFound
		}
		e := envelope.Errorf(code, "cannot start %s: %v; check that it is an executable for this system and that the working directory %s still exists", j.Argv[0], err, displayDir(j.Cwd))
		started(0, e)
		return fail(s, id, e)
	}
	pid := cmd.Process.Pid
	j, err = update(s, id, func(cur *Job) error {
		cur.Status = Running
		cur.Pid = pid
		cur.ProcessStart = proc.Start(pid)
		cur.StartedAt = begin.UTC()
		return nil
	})
	if err != nil {
		// The record cannot be written: a job nobody can see must not run.
		signalGroup(pid, syscall.SIGKILL)
		cmd.Wait()
		started(0, err)
		return nil, err
	}
	started(pid, nil)

	// The first reason to stop wins, so cancelled and timedOut are never
	// both true.
	var (
		mu     sync.Mutex
		reason string
	)
	stop := func(why string) {
		mu.Lock()
		first := reason == ""
		if first {
			reason = why
		}
		mu.Unlock()
		if first {
			go killTree(pid)
		}
	}
	if j.CancelRequested { // a cancel arrived before the process existed
		stop(Cancelled)
	}
	if j.TimeoutSeconds > 0 {
		t := time.AfterFunc(time.Duration(j.TimeoutSeconds*float64(time.Second)), func() { stop(TimedOut) })
		defer t.Stop()
	}
	done := make(chan struct{})
	go func() {
		// A job whose record (or whole workspace) was removed has no owner
		// left to read its end: it is stopped within one check.
		check := time.NewTicker(ownerCheck)
		defer check.Stop()
		for {
			select {
			case <-sigs:
				stop(Cancelled)
				return
			case <-check.C:
				if _, err := os.Stat(jobPath(s, id)); errors.Is(err, fs.ErrNotExist) {
					stop(Cancelled)
					return
				}
			case <-done:
				return
			}
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	end := time.Now()
	// What the command left behind in its group goes with it: a job is
	// over when its process is, and no stray child outlives it.
	signalGroup(pid, syscall.SIGKILL)
	reapOrphans(killGrace)
	var changes *snapshot.Summary
	if snap != nil {
		changes = snap.End(context.Background(), id, changesPath(s, id), s.Rel(changesPath(s, id)))
	}

	mu.Lock()
	why := reason
	mu.Unlock()
	// The logs are complete now. Their size and hash (streamed) go with the
	// end in one write when they are small; a large log is hashed after the
	// end is recorded, so status never shows a finished job as running.
	small := logSize(s, j.Stdout.Path)+logSize(s, j.Stderr.Path) <= hashInline
	measure := func(cur *Job) {
		cur.Stdout.Bytes, cur.Stdout.SHA256 = hashLog(logAbs(s, cur.Stdout.Path))
		cur.Stderr.Bytes, cur.Stderr.SHA256 = hashLog(logAbs(s, cur.Stderr.Path))
	}
	j, err = update(s, id, func(cur *Job) error {
		ended := end.UTC()
		cur.EndedAt = &ended
		cur.DurationMs = end.Sub(begin).Milliseconds()
		code, sig := exitOf(cmd.ProcessState, waitErr)
		if sig == "" && cur.Sandbox != nil && cur.Sandbox.Mechanism != sandbox.None && code != nil && *code > 128 && *code <= 128+64 {
			// The sandbox's parent reports a command killed by signal N
			// the way a shell does: exit code 128+N.
			sig = signalName(syscall.Signal(*code - 128))
		}
		cur.ExitCode = code
		cur.Signal = sig
		cur.Changes = changes
		switch {
		case why == TimedOut:
			cur.Status, cur.TimedOut = TimedOut, true
		case why == Cancelled || cur.CancelRequested:
			cur.Status, cur.Cancelled = Cancelled, true
		case sig != "":
			cur.Status = Killed
		case code != nil && *code == 0:
			cur.Status = Exited
		default:
			cur.Status = Failed
		}
		if small {
			measure(cur)
		}
		return nil
	})
	if err != nil || small {
		return j, err
	}
	return update(s, id, func(cur *Job) error {
		measure(cur)
		return nil
	})
}

// hashInline is the log size up to which the hash is recorded with the end.
const hashInline = 16 << 20

func logSize(s *store.Store, rel string) int64 {
	fi, err := os.Stat(logAbs(s, rel))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// killTree stops a process group: SIGTERM, then SIGKILL to whatever is
// left after the grace period.
func killTree(pgid int) {
	if signalGroup(pgid, syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(killGrace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	signalGroup(pgid, syscall.SIGKILL)
}

// exitOf reads the exit code; a process killed by a signal gets the
// shell's 128+N and the signal's name.
func exitOf(ps *os.ProcessState, waitErr error) (*int, string) {
	if ps == nil {
		return nil, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code := 128 + int(ws.Signal())
		return &code, signalName(ws.Signal())
	}
	code := ps.ExitCode()
	return &code, ""
}

// openLogs creates the job's two log files.
func openLogs(s *store.Store, j *Job) (*os.File, *os.File, error) {
	outF, err := os.OpenFile(logAbs(s, j.Stdout.Path), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, envelope.Errorf(envelope.Internal, "cannot create %s: %v; check permissions and free space under .agentic/", j.Stdout.Path, err)
	}
	errF, err := os.OpenFile(logAbs(s, j.Stderr.Path), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		outF.Close()
		return nil, nil, envelope.Errorf(envelope.Internal, "cannot create %s: %v; check permissions and free space under .agentic/", j.Stderr.Path, err)
	}
	return outF, errF, nil
}

// fail records that the job never ran.
func fail(s *store.Store, id string, cause error) (*Job, error) {
	now := time.Now().UTC()
	update(s, id, func(cur *Job) error {
		cur.Status = Failed
		cur.EndedAt = &now
		cur.Error = cause.Error()
		return nil
	})
	return nil, cause
}

func displayDir(rel string) string {
	if rel == "" || rel == "." {
		return "(the workspace root)"
	}
	return rel
}
