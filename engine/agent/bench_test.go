package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/agent/agenttest"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	_ "github.com/agentic-workspace/aw/engine/schema" // installs the run's toolbox
	"github.com/agentic-workspace/aw/engine/workspace"
)

// BenchmarkLoopOverheadPerToolCall runs a scripted 50-call run through
// the agent.run row and measures, at the model server, the time from a
// reply leaving it to the next request arriving: the loop's own cost per
// tool call (decoding the reply, the dispatch of the call, the
// transcript's synced appends, building the next request), without the
// model; the run has two passes of 25 calls, so a pass rebuild is in it. It reports the median and the mean in ms per call.
func BenchmarkLoopOverheadPerToolCall(b *testing.B) {
	// A read-only call; a writing one, whose reply and result are synced
	// to disk before it runs and before the next request (write ahead).
	b.Run("read", func(b *testing.B) { benchLoop(b, `{"action":"stat","path":"README.md"}`, "workspace_inspect") })
	b.Run("write", func(b *testing.B) { benchLoop(b, `{"action":"append","name":"log","content":"x"}`, "workspace_notes") })
}

func benchLoop(b *testing.B, args, tool string) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\nline two\n"), 0o644)
	row, err := dispatch.Find("workspace_agent", "run")
	if err != nil {
		b.Fatal(err)
	}
	const calls = 50
	var gaps, loops []time.Duration
	for i := 0; i < b.N; i++ {
		var turns []agenttest.Turn
		for j := 0; j < calls; j++ {
			turns = append(turns, agenttest.Turn{Calls: []agenttest.Call{{Tool: tool, Args: args}}})
		}
		turns = append(turns, agenttest.Turn{Content: `{"summary":"done","confidence":"high"}`})
		model := agenttest.New(b, turns...)
		var sent time.Time
		model.After = func() { sent = time.Now() }
		model.Before = func() {
			if !sent.IsZero() {
				gaps = append(gaps, time.Since(sent))
			}
		}
		cfg := fmt.Sprintf(`{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": %q, "model": "bench"}}`, model.BaseURL())
		os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644)
		ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
		if err != nil {
			b.Fatal(err)
		}
		req, err := row.Decode([]byte(fmt.Sprintf(`{"objective":"stat README.md %d times","max_tool_calls":%d,"rounds_per_pass":%d,"max_passes":3}`, calls, calls, calls/2)))
		if err != nil {
			b.Fatal(err)
		}
		env := row.Run(context.Background(), ws, req)
		if !env.OK || model.Served() != calls+1 {
			b.Fatalf("run: %+v (served %d)", env, model.Served())
		}
		model.Close()
		// The loop's part alone: each gap less the call's own run, which
		// the transcript records.
		tools := toolTimes(b, dir, env)
		for k, g := range gaps[len(gaps)-calls:] {
			loops = append(loops, g-tools[k])
		}
	}
	report := func(d []time.Duration, name string) {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-median")
	}
	report(loops, "ms/call-without-tool")
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "ms/call-median")
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(gaps)), "ms/call-mean")
	b.ReportMetric(float64(gaps[len(gaps)*9/10].Microseconds())/1000, "ms/call-p90")
}

// toolTimes reads each tool call's own duration from the run's transcript.
func toolTimes(b *testing.B, dir string, env envelope.Envelope) []time.Duration {
	raw, _ := json.Marshal(env.Data)
	var d struct{ TranscriptPath string }
	json.Unmarshal(raw, &d)
	text, err := os.ReadFile(filepath.Join(dir, d.TranscriptPath))
	if err != nil {
		b.Fatal(err)
	}
	var out []time.Duration
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		var ev struct {
			Type string
			Data struct{ Microseconds int64 }
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Type == "tool_result" {
			out = append(out, time.Duration(ev.Data.Microseconds)*time.Microsecond)
		}
	}
	return out
}
