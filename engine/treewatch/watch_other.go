//go:build !linux

package treewatch

import (
	"context"
	"encoding/json"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Service is the broker's "tree" service. Here there is no watch aw uses:
// every answer is Full, and callers walk.
type Service struct{}

// NewService returns the service the broker hosts under "tree".
func NewService() *Service { return &Service{} }

// Call implements broker.Service.
func (*Service) Call(context.Context, *workspace.Workspace, string, json.RawMessage) (any, error) {
	return Changes{Full: true, Reason: "aw watches trees on Linux only"}, nil
}

// Held implements broker.Service.
func (*Service) Held() []broker.Held { return nil }

// Close implements broker.Service.
func (*Service) Close() {}
