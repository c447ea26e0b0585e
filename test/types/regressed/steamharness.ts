// DX-2: "steamharness" as it would type workflows if inference regressed to `any`. The type test
// checks the must-compile fixtures against it and expects them to fail (unused
// `@ts-expect-error`, broken type equalities), which shows the fixtures can catch a regression.
export declare function defineWorkflow(definition: any): any;
export type WorkflowDefinition = any;
export type WorkflowRunContext = any;
export type WorkflowFileParamValue = any;
export type WorkflowInputField = any;
export type UserInputField = any;
export type JsonValue = any;
export type InferWorkflowParams<_Ps> = any;
export type InferUserInput<_Fs> = any;
