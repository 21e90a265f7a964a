import { Controller, Get } from '@nestjs/common';
import { OpenRead } from './bearer.guard';
import { openApiDocument } from './openapi';

/** The API description is public, like the page that documents it. */
@Controller()
@OpenRead()
export class OpenApiController {
  private readonly document = openApiDocument();

  @Get('openapi.json')
  get() {
    return this.document;
  }
}
