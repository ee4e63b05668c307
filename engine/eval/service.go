package eval

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Service is the broker's eval service: one interpreter per language.
type Service struct {
	mu      sync.Mutex
	kernels map[string]*kernel
}

// NewService returns the service the broker hosts under "eval".
func NewService() *Service { return &Service{kernels: map[string]*kernel{}} }

// runCall is "eval.run".
type runCall struct {
	Language  string `json:"language"`
	Code      string `json:"code"`
	Reset     bool   `json:"reset"`
	TimeoutMs int    `json:"timeoutMs"`
}

// Call implements broker.Service.
func (v *Service) Call(ctx context.Context, ws *workspace.Workspace, method string, params json.RawMessage) (any, error) {
	if method != "run" {
		return nil, envelope.Errorf(envelope.InvalidInput, "the eval service has no method %q", method)
	}
	var c runCall
	if err := json.Unmarshal(params, &c); err != nil {
		return nil, err
	}
	v.mu.Lock()
	k := v.kernels[c.Language]
	if k != nil && (c.Reset || !k.alive()) {
		delete(v.kernels, c.Language)
		v.mu.Unlock()
		k.kill()
		k = nil
		v.mu.Lock()
	}
	v.mu.Unlock()
	fresh := false
	if k == nil {
		var err error
		if k, err = startKernel(ctx, ws, c.Language); err != nil {
			return nil, err
		}
		fresh = true
		v.mu.Lock()
		if cur := v.kernels[c.Language]; cur != nil && cur.alive() {
			v.mu.Unlock()
			k.kill()
			k = cur // another call started one meanwhile
			fresh = false
		} else {
			v.kernels[c.Language] = k
			v.mu.Unlock()
		}
	}
	if c.Code == "" {
		return &cellResult{Language: k.language, Version: k.version, OK: true, Fresh: fresh, Displays: []Display{}}, nil
	}
	res, err := k.run(ctx, c.Code, time.Duration(c.TimeoutMs)*time.Millisecond)
	if err != nil {
		return nil, err
	}
	res.Fresh = fresh || res.Cell == 1
	if res.Restarted {
		v.mu.Lock()
		if v.kernels[c.Language] == k {
			delete(v.kernels, c.Language)
		}
		v.mu.Unlock()
		k.kill()
	}
	return res, nil
}

// Held implements broker.Service.
func (v *Service) Held() []broker.Held {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []broker.Held
	for _, k := range v.kernels {
		if k.alive() {
			out = append(out, k.held())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// Close implements broker.Service.
func (v *Service) Close() {
	v.mu.Lock()
	ks := v.kernels
	v.kernels = map[string]*kernel{}
	v.mu.Unlock()
	for _, k := range ks {
		k.kill()
	}
}
