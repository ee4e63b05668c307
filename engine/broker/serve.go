//go:build unix

package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// host is the running broker.
type host struct {
	root     string
	open     func() (*workspace.Workspace, error)
	services map[string]Service
	record   Record
	started  time.Time
	lastCall atomic.Int64 // unix nanoseconds
	calls    atomic.Int64
	busy     atomic.Int64 // calls in flight
	stop     chan struct{}
	stopOnce sync.Once
}

// Serve is the broker process (`aw broker serve`): it takes the
// workspace's broker lock, listens on the socket and serves until it is
// idle, stopped, or its record or workspace is gone. open opens the
// workspace for each call (settings may change between calls).
func Serve(root string, open func() (*workspace.Workspace, error), services map[string]Service) error {
	ws, err := open()
	if err != nil {
		return err
	}
	dir := Dir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if !tryLock(lock) {
		return nil // another broker holds this workspace
	}
	sock, err := SocketPath(ws.Root, os.Getenv)
	if err != nil {
		return err
	}
	os.Remove(sock) // stale: the lock says no broker listens on it
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v", sock, err)
	}
	h := &host{root: ws.Root, open: open, services: services, started: time.Now(), stop: make(chan struct{})}
	h.lastCall.Store(time.Now().UnixNano())
	h.record = Record{Pid: os.Getpid(), Start: proc.Start(os.Getpid()), Identity: Identity(), Socket: sock, StartedAt: h.started.UTC()}
	raw, _ := json.MarshalIndent(h.record, "", "  ")
	if err := store.WriteFile(recordPath(ws.Root), append(raw, '\n'), 0o600); err != nil {
		ln.Close()
		return err
	}
	go h.watch(idleLimit(ws))
	go func() {
		<-h.stop
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			break
		}
		h.lastCall.Store(time.Now().UnixNano())
		jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(conn, jsonrpc2.PlainObjectCodec{}), jsonrpc2.AsyncHandler(h))
	}
	for _, s := range h.services {
		s.Close()
	}
	// Remove what is ours only: a newer broker may already own them.
	if cur, err := readRecord(ws.Root); err == nil && cur.Pid == os.Getpid() {
		os.Remove(recordPath(ws.Root))
		os.Remove(sock)
	}
	return nil
}

// watch ends the broker when idle past limit, or when its record or its
// workspace is gone.
func (h *host) watch(limit time.Duration) {
	t := time.NewTicker(CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		idle := time.Since(time.Unix(0, h.lastCall.Load()))
		if h.busy.Load() == 0 && idle > limit && time.Now().After(h.heldUntil()) {
			h.shutdown()
			return
		}
		cur, err := readRecord(h.root)
		if err != nil || cur.Pid != h.record.Pid {
			h.shutdown()
			return
		}
	}
}

// heldUntil is the latest time a held resource keeps the broker alive to.
func (h *host) heldUntil() time.Time {
	var until time.Time
	for _, s := range h.services {
		for _, r := range s.Held() {
			if r.Until.After(until) {
				until = r.Until
			}
		}
	}
	return until
}

func (h *host) shutdown() { h.stopOnce.Do(func() { close(h.stop) }) }

func readRecord(root string) (Record, error) {
	var r Record
	raw, err := os.ReadFile(recordPath(root))
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(raw, &r)
}

// Handle serves one call: the broker's own methods, or "<service>.<method>".
func (h *host) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		return
	}
	h.busy.Add(1)
	defer func() {
		h.busy.Add(-1)
		h.lastCall.Store(time.Now().UnixNano())
	}()
	h.calls.Add(1)
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	result, err := h.call(context.WithValue(ctx, callerKey{}, conn), req.Method, params)
	if err != nil {
		conn.ReplyWithError(ctx, req.ID, wireError(err))
		return
	}
	conn.Reply(ctx, req.ID, result)
	if req.Method == "broker.stop" {
		h.shutdown()
	}
}

type callerKey struct{}

// CallBack calls the aw call being served (over its own connection, when
// it came with CallServing) and decodes the answer into result.
func CallBack(ctx context.Context, method string, params, result any) error {
	conn, _ := ctx.Value(callerKey{}).(*jsonrpc2.Conn)
	if conn == nil {
		return envelope.Errorf(envelope.Internal, "no aw call to answer %s", method)
	}
	return call(ctx, conn, method, params, result)
}

func (h *host) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "broker.hello":
		return hello{Identity: h.record.Identity, Pid: h.record.Pid}, nil
	case "broker.status":
		return h.status(), nil
	case "broker.stop":
		return h.status(), nil
	}
	name, sub, ok := strings.Cut(method, ".")
	s := h.services[name]
	if !ok || s == nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "the broker has no method %q", method)
	}
	ws, err := h.open()
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, ws, sub, params)
}

func (h *host) status() Status {
	st := Status{
		Running: true, Pid: h.record.Pid, Identity: h.record.Identity, Socket: h.record.Socket,
		AgeSeconds:  int64(time.Since(h.started) / time.Second),
		IdleSeconds: int64(time.Since(time.Unix(0, h.lastCall.Load())) / time.Second),
		Calls:       h.calls.Load(), Held: []Held{},
	}
	names := make([]string, 0, len(h.services))
	for n := range h.services {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, r := range h.services[n].Held() {
			r.Service = n
			st.Held = append(st.Held, r)
		}
	}
	return st
}

// wireError carries an envelope error's code across the socket.
func wireError(err error) *jsonrpc2.Error {
	var e *envelope.Error
	if errors.As(err, &e) {
		data, _ := json.Marshal(e)
		raw := json.RawMessage(data)
		return &jsonrpc2.Error{Code: codeEnvelope, Message: e.Message, Data: &raw}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
}

// codeEnvelope marks a JSON-RPC error whose data is an envelope error.
const codeEnvelope = 1
