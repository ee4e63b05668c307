package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// side is one command of a row: aw or its peer.
type side struct {
	name string   // shown in the table
	argv []string // argv[0] is looked up on PATH unless it has a slash
	dir  string
	env  []string // added to the environment
	// okExit lists exit codes besides 0 that are not failures (grep-like
	// tools exit 1 when nothing matched).
	okExit []int
}

// row is one line of the table.
type row struct {
	name   string
	target float64 // aw median / peer median must not exceed it
	// maxDiff, when set, replaces target: aw's median may exceed the
	// peer's by at most this much (what a layer adds, not a ratio).
	maxDiff  time.Duration
	aw, peer side
	// baseline, when set, is aw without the layer the row measures: aw's
	// figure is then its median minus the baseline's (what the layer adds),
	// held to target against the peer.
	baseline *side
	missing  string // when the peer's executable is absent: how to install it
	// check compares one aw output with one peer output (both stdout).
	check func(aw, peer []byte) error
	// after runs after every aw run, outside the timing (artifact cleanup).
	after    func()
	showRSS  bool
	rssLimit int64 // bytes; 0 = none
	// calls, when set, makes the row one of round trips over long-lived
	// servers (aw and peer are then the servers' commands).
	calls *callRow
}

type result struct {
	name, peer           string
	awMedian, peerMedian time.Duration
	awRSS                int64
	showRSS              bool
	rssLimit             int64
	target               float64
	maxDiff              time.Duration
	status, note         string
}

type runOutput struct {
	stdout, stderr []byte
	elapsed        time.Duration
	maxRSS         int64 // bytes
}

func (s side) run() (runOutput, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), s.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	res := runOutput{stdout: out.Bytes(), stderr: errb.Bytes(), elapsed: elapsed}
	if cmd.ProcessState != nil {
		res.maxRSS = maxRSS(cmd.ProcessState)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		for _, c := range s.okExit {
			if exit.ExitCode() == c && len(bytes.TrimSpace(res.stderr)) == 0 {
				return res, nil
			}
		}
		why := firstLine(res.stderr, res.stdout)
		var env awEnvelope
		if json.Unmarshal(res.stdout, &env) == nil && env.Error != nil {
			why = env.Error.Code + ": " + env.Error.Message
		}
		return res, fmt.Errorf("%s exited %d: %s", s.name, exit.ExitCode(), why)
	}
	return res, err
}

func firstLine(bufs ...[]byte) string {
	for _, b := range bufs {
		if s := strings.TrimSpace(string(b)); s != "" {
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[:i]
			}
			if len(s) > 200 {
				s = s[:200] + "..."
			}
			return s
		}
	}
	return "no output"
}

// measure runs a row: warm-up runs of each side (the last pair's outputs are
// checked for equivalence), then aw and the peer alternately.
func (b *bench) measure(r row) result {
	if r.calls != nil {
		return b.measureCalls(r)
	}
	res := result{name: r.name, peer: r.peer.name, target: r.target, maxDiff: r.maxDiff, showRSS: r.showRSS, rssLimit: r.rssLimit}
	if _, err := exec.LookPath(r.peer.argv[0]); err != nil {
		res.status, res.note = "SKIP", "peer missing: "+r.missing
		logf("  %s", res.note)
		return res
	}
	fail := func(format string, args ...any) result {
		res.status, res.note = "FAIL", fmt.Sprintf(format, args...)
		logf("  %s", res.note)
		return res
	}
	var awOut, peerOut runOutput
	var err error
	for i := 0; i < max(b.o.warmup, 1); i++ {
		if awOut, err = r.aw.run(); err != nil {
			return fail("aw: %v", err)
		}
		if r.check != nil && i == max(b.o.warmup, 1)-1 {
			if peerOut, err = r.peer.run(); err != nil {
				return fail("peer: %v", err)
			}
			if err := r.check(awOut.stdout, peerOut.stdout); err != nil {
				if r.after != nil {
					r.after()
				}
				return fail("output not equivalent, figure does not count: %v", err)
			}
		} else if _, err = r.peer.run(); err != nil {
			return fail("peer: %v", err)
		}
		if r.after != nil {
			r.after()
		}
	}
	var awTimes, peerTimes, baseTimes []time.Duration
	for i := 0; i < b.o.runs; i++ {
		a, err := r.aw.run()
		if r.after != nil {
			r.after()
		}
		if err != nil {
			return fail("aw: %v", err)
		}
		if r.baseline != nil {
			bl, err := r.baseline.run()
			if r.after != nil {
				r.after()
			}
			if err != nil {
				return fail("baseline: %v", err)
			}
			baseTimes = append(baseTimes, bl.elapsed)
		}
		p, err := r.peer.run()
		if err != nil {
			return fail("peer: %v", err)
		}
		awTimes, peerTimes = append(awTimes, a.elapsed), append(peerTimes, p.elapsed)
		res.awRSS = max(res.awRSS, a.maxRSS)
		if b.o.verbose {
			logf("  run %d: aw %s, %s %s", i+1, dur(a.elapsed), r.peer.name, dur(p.elapsed))
		}
	}
	res.awMedian, res.peerMedian = median(awTimes), median(peerTimes)
	if r.baseline != nil {
		base := median(baseTimes)
		logf("  aw %s, %s %s: aw adds %s", dur(res.awMedian), r.baseline.name, dur(base), dur(res.awMedian-base))
		res.awMedian -= base
	}
	res.status = "pass"
	var why []string
	if r.maxDiff > 0 {
		if res.awMedian-res.peerMedian > r.maxDiff {
			res.status = "FAIL"
			why = append(why, fmt.Sprintf("adds %s, over %s", dur(res.awMedian-res.peerMedian), dur(r.maxDiff)))
		}
	} else if float64(res.awMedian) > r.target*float64(res.peerMedian) {
		res.status = "FAIL"
		why = append(why, "slower than target")
	}
	if r.rssLimit > 0 && res.awRSS >= r.rssLimit {
		res.status = "FAIL"
		why = append(why, fmt.Sprintf("peak RSS %.1f MiB over %d MiB", float64(res.awRSS)/(1<<20), r.rssLimit>>20))
	}
	if len(why) > 0 {
		res.note = strings.Join(why, "; ")
	} else {
		res.note = "outputs equivalent"
	}
	logf("  aw %s, %s %s: %s", dur(res.awMedian), r.peer.name, dur(res.peerMedian), res.status)
	return res
}
