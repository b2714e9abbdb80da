// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// daemon.go — execd-go -serve: the HTTP server of server.go on ADDR until
// SIGTERM or SIGINT, which release every session handle (detached sessions
// live on for the next daemon). It prints "listening ADDR" once it serves.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func runDaemon(addr string, sc ServerConfig) int {
	srv, err := NewServer(sc)
	if err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: %v\n", err)
		srv.Close()
		return 1
	}
	hs := &http.Server{Handler: srv}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		hs.Shutdown(context.Background())
	}()
	fmt.Printf("listening %s\n", ln.Addr())
	err = hs.Serve(ln)
	srv.Close()
	if err != http.ErrServerClosed {
		fmt.Fprintf(os.Stderr, "execd-go: %v\n", err)
		return 1
	}
	return 0
}
