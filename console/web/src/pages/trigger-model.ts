/** A trigger as the console's API lists it (`GET triggers`), shared by the Triggers page, its panels and Flow. */
export interface RegisteredTrigger {
  id: string;
  trigger_type: string;
  function_id: string;
  worker_name: string;
  config: Record<string, unknown>;
}
