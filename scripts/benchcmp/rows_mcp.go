package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The MCP row: one read round trip (request written, answer read) over a
// long-lived server on stdio, `aw mcp` calling workspace_inspect read
// against the reference Node MCP filesystem server calling read_text_file,
// on the same 200-line file, alternately in the same run. Start-up is not
// in the figure: both servers are started and initialized once, and the
// warm-up calls are not measured. The peer is installed with npm at a
// pinned version (into the data directory when --data is given, so it is
// installed once); without npm the row is skipped, except under CI=true,
// where a missing peer is a failure.

func mcpRowNames() []string { return []string{"mcp-read"} }

// The peer, pinned: a new release must not move the figure silently.
const (
	mcpPeerPackage = "@modelcontextprotocol/server-filesystem"
	mcpPeerVersion = "2026.8.31"
	mcpReadLines   = 200
	callsPerRun    = 50 // round trips of each side per measured run
)

// mcpCall is what one side sends: a tool name and its arguments.
type mcpCall struct {
	tool string
	args map[string]any
}

// callRow describes a row measured by round trips over long-lived servers
// instead of by process runs.
type callRow struct {
	awCall, peerCall mcpCall
	setup            func() (peerArgv []string, err error) // installs the peer
	// check compares one aw tool result text with one peer result text.
	check func(aw, peer string) error
}

func mcpRows(b *bench) []row {
	root := filepath.Join(b.d.dir, "mcp")
	file := filepath.Join(root, "lines.txt")
	return []row{{name: "mcp-read", target: 0.5,
		aw:   side{name: "aw mcp", argv: []string{b.aw, "mcp", "--root", root}, dir: root, env: []string{"AW_ROOT=", "AW_APPROVER_TOKEN="}},
		peer: side{name: "node server-filesystem", dir: root},
		calls: &callRow{
			awCall:   mcpCall{"workspace_inspect", map[string]any{"action": "read", "path": "lines.txt"}},
			peerCall: mcpCall{"read_text_file", map[string]any{"path": file}},
			setup: func() ([]string, error) {
				if err := writeLines(root, file); err != nil {
					return nil, err
				}
				return b.mcpPeer()
			},
			check: func(aw, peer string) error {
				env, err := parseEnvelope([]byte(aw))
				if err != nil {
					return err
				}
				var rd struct {
					Content string `json:"content"`
				}
				if err := json.Unmarshal(env.Data, &rd); err != nil {
					return err
				}
				return compareWindow(rd.Content, 1, []byte(peer))
			}}}}
}

// writeLines makes the MCP workspace: a 200-line file of about 60 bytes a
// line, and a config file as `aw init` would leave one.
func writeLines(root, file string) error {
	if err := writeConfig(root, "{\n  // scripts/bench: the MCP read row's workspace.\n  \"permissionMode\": 1\n}\n"); err != nil {
		return err
	}
	var sb strings.Builder
	for l := 1; l <= mcpReadLines; l++ {
		fmt.Fprintf(&sb, "line %03d: the %s %s of the %s, read over MCP\n", l, words[l%len(words)], words[(l*5)%len(words)], words[(l*11)%len(words)])
	}
	return os.WriteFile(file, []byte(sb.String()), 0o644)
}

// errPeerMissing is a peer that cannot be installed here; CI=true makes it a
// failure instead of a skip.
type errPeerMissing struct{ why string }

func (e errPeerMissing) Error() string { return e.why }

// mcpPeer installs the pinned Node server (once per data directory) and
// returns its argv.
func (b *bench) mcpPeer() ([]string, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, errPeerMissing{tool + " not found: apt-get install nodejs npm (scripts/test-deps installs them)"}
		}
	}
	dir := filepath.Join(b.d.dir, "mcp-peer", mcpPeerVersion)
	entry := filepath.Join(dir, "node_modules", filepath.FromSlash(mcpPeerPackage), "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		logf("  installing %s@%s with npm", mcpPeerPackage, mcpPeerVersion)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", mcpPeerPackage+"@"+mcpPeerVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, errPeerMissing{fmt.Sprintf("npm install %s@%s failed: %v: %s", mcpPeerPackage, mcpPeerVersion, err, firstLine(out))}
		}
		if _, err := os.Stat(entry); err != nil {
			return nil, fmt.Errorf("npm installed %s@%s without %s", mcpPeerPackage, mcpPeerVersion, entry)
		}
	}
	return []string{"node", entry}, nil
}

// mcpSession is one long-lived MCP server on stdio, spoken to in
// newline-delimited JSON-RPC.
type mcpSession struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	sent time.Time // when the last request was written
}

func startSession(s side) (*mcpSession, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m := &mcpSession{name: s.name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, _, err := m.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "aw-bench", "version": "1"}}); err != nil {
		m.close()
		return nil, fmt.Errorf("%s: initialize: %v", s.name, err)
	}
	if err := m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

func (m *mcpSession) send(msg any) error {
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = m.in.Write(append(raw, '\n'))
	return err
}

// request sends one request and returns its result and when its last
// byte arrived (the client's own parsing is not the server's time),
// skipping the notifications and server requests that come before it.
func (m *mcpSession) request(method string, params any) (json.RawMessage, time.Time, error) {
	m.id++
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id, "method": method, "params": params})
	if err != nil {
		return nil, time.Time{}, err
	}
	m.sent = time.Now()
	if _, err := m.in.Write(append(raw, '\n')); err != nil {
		return nil, time.Time{}, err
	}
	for {
		line, err := m.out.ReadBytes('\n')
		arrived := time.Now()
		if err != nil {
			return nil, arrived, fmt.Errorf("reading the answer: %v", err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, arrived, fmt.Errorf("not JSON-RPC: %s", clip(string(line)))
		}
		if resp.ID == nil || resp.Method != "" || *resp.ID != m.id {
			continue
		}
		if resp.Error != nil {
			return nil, arrived, fmt.Errorf("%s", resp.Error.Message)
		}
		return resp.Result, arrived, nil
	}
}

// call runs one tool call and returns its first text content and how long
// the round trip took: from writing the request to reading the answer's
// last byte.
func (m *mcpSession) call(c mcpCall) (string, time.Duration, error) {
	raw, arrived, err := m.request("tools/call", map[string]any{"name": c.tool, "arguments": c.args})
	elapsed := arrived.Sub(m.sent)
	if err != nil {
		return "", 0, fmt.Errorf("%s %s: %v", m.name, c.tool, err)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		return "", 0, fmt.Errorf("%s %s: no text content in %s", m.name, c.tool, clip(string(raw)))
	}
	if res.IsError {
		return "", 0, fmt.Errorf("%s %s failed: %s", m.name, c.tool, clip(res.Content[0].Text))
	}
	return res.Content[0].Text, elapsed, nil
}

func (m *mcpSession) close() {
	m.in.Close()
	done := make(chan struct{})
	go func() { m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		m.cmd.Process.Kill()
		<-done
	}
}

// measureCalls runs a call row: both servers started once, warm-up round
// trips (the last pair's results checked for equivalence), then callsPerRun
// round trips per run of each side, alternating.
func (b *bench) measureCalls(r row) result {
	res := result{name: r.name, peer: r.peer.name, target: r.target}
	fail := func(format string, args ...any) result {
		res.status, res.note = "FAIL", fmt.Sprintf(format, args...)
		logf("  %s", res.note)
		return res
	}
	argv, err := r.calls.setup()
	if missing, ok := err.(errPeerMissing); ok {
		if os.Getenv("CI") == "true" {
			return fail("peer missing (CI=true makes this a failure): %s", missing.why)
		}
		res.status, res.note = "SKIP", "peer missing: "+missing.why
		logf("  %s", res.note)
		return res
	}
	if err != nil {
		return fail("setup: %v", err)
	}
	peerSide := r.peer
	peerSide.argv = append(argv, r.peer.dir)
	aw, err := startSession(r.aw)
	if err != nil {
		return fail("%v", err)
	}
	defer aw.close()
	peer, err := startSession(peerSide)
	if err != nil {
		return fail("%v", err)
	}
	defer peer.close()

	for i := 0; i < max(b.o.warmup, 1)*callsPerRun; i++ {
		a, _, err := aw.call(r.calls.awCall)
		if err != nil {
			return fail("%v", err)
		}
		p, _, err := peer.call(r.calls.peerCall)
		if err != nil {
			return fail("%v", err)
		}
		if i == 0 {
			if err := r.calls.check(a, p); err != nil {
				return fail("output not equivalent, figure does not count: %v", err)
			}
		}
	}
	var awTimes, peerTimes []time.Duration
	awCPU, peerCPU := cpuTime(aw.cmd.Process.Pid), cpuTime(peer.cmd.Process.Pid)
	for run := 0; run < b.o.runs; run++ {
		for i := 0; i < callsPerRun; i++ {
			_, a, err := aw.call(r.calls.awCall)
			if err != nil {
				return fail("%v", err)
			}
			_, p, err := peer.call(r.calls.peerCall)
			if err != nil {
				return fail("%v", err)
			}
			awTimes, peerTimes = append(awTimes, a), append(peerTimes, p)
		}
		if b.o.verbose {
			n := len(awTimes)
			logf("  run %d: aw %s, %s %s", run+1, dur(median(awTimes[n-callsPerRun:])), r.peer.name, dur(median(peerTimes[n-callsPerRun:])))
		}
	}
	res.awMedian, res.peerMedian = median(awTimes), median(peerTimes)
	cpu := ""
	if awCPU >= 0 && peerCPU >= 0 {
		n := time.Duration(len(awTimes))
		awCPU, peerCPU = (cpuTime(aw.cmd.Process.Pid)-awCPU)/n, (cpuTime(peer.cmd.Process.Pid)-peerCPU)/n
		cpu = fmt.Sprintf("; server CPU per call: aw %s, peer %s", dur(awCPU), dur(peerCPU))
	}
	res.status, res.note = "pass", fmt.Sprintf("outputs equivalent; %d round trips each%s", len(awTimes), cpu)
	if float64(res.awMedian) > r.target*float64(res.peerMedian) {
		res.status, res.note = "FAIL", "slower than target"+cpu
	}
	logf("  aw %s, %s %s: %s%s", dur(res.awMedian), r.peer.name, dur(res.peerMedian), res.status, cpu)
	return res
}

// cpuTime is the user and system CPU time a running process has used so
// far (Linux /proc), or -1 where that is not known.
func cpuTime(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command name, which may hold spaces: state is
	// field 3, utime and stime are 14 and 15, in clock ticks.
	i := strings.LastIndexByte(string(raw), ')')
	f := strings.Fields(string(raw[i+1:]))
	if i < 0 || len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+s) * time.Second / clockTicks
}

// clockTicks is USER_HZ, 100 on every Linux architecture aw builds for.
const clockTicks = 100
