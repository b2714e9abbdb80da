module osb-isolate.example/execd-go

go 1.19
