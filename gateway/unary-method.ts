/** The slice of a generated method definition (e.g. `InvoiceServiceService.getInvoice`) a unary call needs. */
export interface UnaryMethod<Req, Res> {
  readonly path: string;
  readonly requestStream: false;
  readonly responseStream: false;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (value: Buffer) => Res;
}
