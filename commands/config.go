package commands

import "github.com/spf13/cobra"

func (a *app) configCmd() *cobra.Command { return &cobra.Command{Use: "config"} }
func (a *app) initCmd() *cobra.Command   { return &cobra.Command{Use: "init"} }
